package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.runtime.Keys;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Eviction loop (IronCore IEP-21): DELETEs a bound Machine whose pool carries a NoExecute taint it
 * does not tolerate and records a Normal {@code Evicted} event on it. The machinepoollet then shuts
 * the VM down and releases its finalizer. Key: the Machine's {@code namespace/name}.
 */
public final class EvictionReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(EvictionReconciler.class);

  private final KubernetesClient client;
  private final ClusterCache cache;
  private final EventRecorder events;
  private final ControllerMetrics metrics;

  public EvictionReconciler(
      KubernetesClient client,
      ClusterCache cache,
      EventRecorder events,
      ControllerMetrics metrics) {
    this.client = client;
    this.cache = cache;
    this.events = events;
    this.metrics = metrics;
  }

  @Override
  public Result reconcile(String key) {
    Machine machine = cache.machine(key);
    if (machine == null) {
      return Result.done();
    }
    MachinePool pool = cache.pool(machine.boundPoolName());
    EvictionDecision.Outcome outcome = EvictionDecision.decide(machine, pool);
    if (!outcome.evict()) {
      return Result.done();
    }
    String taints =
        outcome.untolerated().stream().map(Object::toString).collect(Collectors.joining(", "));
    var deleted =
        client
            .resources(Machine.class)
            .inNamespace(Keys.namespace(key))
            .withName(Keys.name(key))
            .delete();
    if (deleted.isEmpty()) {
      return Result.done();
    }
    metrics.evicted();
    LOG.info(
        "evicted machine {} from pool {}: taint {} not tolerated",
        key,
        pool.getMetadata().getName(),
        taints);
    events.record(
        machine,
        "Normal",
        Names.EVICTED_REASON,
        "Evicted from MachinePool "
            + pool.getMetadata().getName()
            + ": taint "
            + taints
            + " is not tolerated");
    return Result.done();
  }
}

package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BoundMachines} from a fabric8 informer on all IronCore Machines (list and watch only; see
 * the webhook's ClusterRole in {@code manifests/rbac}), indexed by {@code
 * spec.machinePoolRef.name}. Starting never waits: until the informer has listed once (or forever,
 * without API access, while it keeps retrying in the background) it knows nothing, so no warnings.
 */
public final class MachineCache implements BoundMachines, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MachineCache.class);
  private static final String BY_POOL = "byPool";

  private final SharedIndexInformer<Machine> informer;

  /**
   * @param resync how often cached Machines are replayed (nothing listens; 0 = never)
   */
  public MachineCache(KubernetesClient client, Duration resync) {
    informer = client.resources(Machine.class).inAnyNamespace().runnableInformer(resync.toMillis());
    informer.addIndexers(
        Map.of(BY_POOL, m -> m.boundPoolName() == null ? List.of() : List.of(m.boundPoolName())));
    informer.exceptionHandler(
        (started, t) -> {
          LOG.debug("machine cache: {} (retrying)", t.toString());
          return true;
        });
  }

  /** Starts listing and watching in the background; returns at once. */
  public MachineCache start() {
    informer
        .start()
        .whenComplete(
            (ok, e) -> {
              if (e == null) {
                LOG.info("machine cache synced: eviction warnings on");
              } else {
                LOG.warn(
                    "machine cache not synced ({}): no eviction warnings until it is",
                    e.toString());
              }
            });
    return this;
  }

  /** True once the informer has listed Machines at least once. */
  public boolean synced() {
    return informer.hasSynced();
  }

  @Override
  public Optional<List<Machine>> boundTo(String pool) {
    if (!informer.hasSynced()) {
      return Optional.empty();
    }
    return Optional.of(informer.getIndexer().byIndex(BY_POOL, pool));
  }

  @Override
  public void close() {
    informer.close();
  }
}

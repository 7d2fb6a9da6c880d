package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.controller.PoolConditionWriter;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the {@code Maintenance} condition of a pool whose drain was cancelled ({@link
 * DrainCancellation}). Key: the pool's name; queued on every pool change, on every change of a CAPI
 * Machine whose {@code status.nodeRef} names it (including its deletion), and for every pool when
 * the caches sync, so a restart finds pools left {@code DrainQueued}/{@code Draining}. Before
 * writing it confirms against the API servers (not the caches, which may lag behind a drain that
 * just started) that the pool still claims a drain and no selected deleting CAPI Machine references
 * it.
 */
public final class DrainCancelReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(DrainCancelReconciler.class);

  private final KubeWriter writer;
  private final ClusterCache cache;
  private final Predicate<Map<String, String>> selector;
  private final EventRecorder events;
  private final PoolConditionWriter conditions;

  /**
   * @param selector {@code --capi-machine-selector} on a CAPI Machine's labels
   * @param clock the time condition writes carry
   */
  public DrainCancelReconciler(
      KubeWriter writer,
      ClusterCache cache,
      Predicate<Map<String, String>> selector,
      Clock clock,
      EventRecorder events) {
    this.writer = writer;
    this.cache = cache;
    this.selector = selector;
    this.events = events;
    this.conditions = new PoolConditionWriter(writer.ironcore(), clock);
  }

  @Override
  public Result reconcile(String pool) {
    if (DrainCancellation.decide(cache.pool(pool), cache.capiMachinesOnNode(pool), selector)
        == null) {
      return Result.done();
    }
    MachinePool live = writer.livePool(pool);
    DrainCancellation.Cancel cancel = DrainCancellation.decide(live, liveCapiMachines(), selector);
    if (cancel == null) {
      LOG.debug("drain cancel {}: cache was behind, the drain is still under way", pool);
      return Result.done();
    }
    MaintenanceCondition c = cancel.condition();
    PoolConditionWriter.Write write =
        conditions.set(live, MaintenanceCondition.TYPE, c.status(), c.reason(), c.message());
    if (write.written()) {
      LOG.info(
          "pool {} condition Maintenance={} ({}): {}", pool, c.status(), c.reason(), c.message());
    }
    if (write.reasonChanged(c.reason())) {
      DrainEvent e = cancel.event();
      events.record(live, e.type(), e.reason(), e.message());
    }
    return Result.done();
  }

  /** All CAPI Machines, from the API server in pages (no field selector reaches the nodeRef). */
  private List<CapiMachine> liveCapiMachines() {
    return PagedList.all(writer.capi().resources(CapiMachine.class).inAnyNamespace());
  }
}

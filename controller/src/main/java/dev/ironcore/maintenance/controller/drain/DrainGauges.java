package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Registers the fleet-wide drain and pool gauges, each computed from the cache at scrape time (so
 * they hold after a restart, like the budget): drains in progress, queued and stuck, the oldest
 * unfinished drain's age, and pools by Ready status and Maintenance reason.
 */
public final class DrainGauges {
  private DrainGauges() {}

  public static void register(
      ControllerMetrics metrics,
      ClusterCache cache,
      DrainReconciler drain,
      DrainPolicy policy,
      Clock clock) {
    metrics.drainGauges(
        () ->
            drain.fleet().stream()
                .filter(DrainSlot::inProgress)
                .map(DrainSlot::pool)
                .distinct()
                .count(),
        () -> DrainBudget.queued(drain.fleet(), policy.maxConcurrentDrains()),
        () ->
            cache.pools().stream()
                .filter(
                    p ->
                        MaintenanceCondition.STUCK_REASON.equals(
                            reason(p, MaintenanceCondition.TYPE)))
                .count(),
        () -> oldestAgeSeconds(drain.fleet(), clock.instant()));
    metrics.pools(
        (ready, maintenance) ->
            cache.pools().stream()
                .filter(
                    p ->
                        Objects.equals(ready, orNone(status(p, Names.READY_CONDITION)))
                            && Objects.equals(
                                maintenance, orNone(reason(p, MaintenanceCondition.TYPE))))
                .count());
  }

  /**
   * Seconds since the CAPI Machine deletion of the oldest drain that still holds its pre-drain hook
   * (queued, held by a shared pool, or on a pool tainted before the deletion too; not one whose
   * hook is released while Cluster API drains the node: fresh eyes, session 44, saw a drain
   * finished on our side counted for as long as CAPI took); 0 without one.
   */
  static double oldestAgeSeconds(List<DrainSlot> fleet, Instant now) {
    return fleet.stream()
        .filter(DrainSlot::hookHeld)
        .map(DrainSlot::deletedAt)
        .min(Instant::compareTo)
        .map(t -> Math.max(0, Duration.between(t, now).toMillis() / 1000.0))
        .orElse(0.0);
  }

  private static String orNone(String s) {
    return s == null ? "none" : s;
  }

  private static Condition condition(MachinePool p, String type) {
    return Conditions.find(p.getStatus() == null ? null : p.getStatus().getConditions(), type);
  }

  private static String status(MachinePool p, String type) {
    Condition c = condition(p, type);
    return c == null ? null : c.getStatus();
  }

  private static String reason(MachinePool p, String type) {
    Condition c = condition(p, type);
    return c == null ? null : c.getReason();
  }
}

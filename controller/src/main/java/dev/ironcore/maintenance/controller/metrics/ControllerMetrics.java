package dev.ironcore.maintenance.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The controller's Micrometer meters (exported for Prometheus at {@code /metrics}). Names, as
 * Prometheus shows them:
 *
 * <ul>
 *   <li>{@code ironcore_maintenance_reconcile_seconds{loop,result}}: pass durations; result is
 *       {@code done}, {@code requeue} or {@code error};
 *   <li>{@code ironcore_maintenance_workqueue_depth{loop}}: keys waiting to be processed;
 *   <li>{@code ironcore_maintenance_evictions_total}: Machines evicted by NoExecute taints;
 *   <li>{@code ironcore_maintenance_drain_steps_total{step}}: drain steps taken (AddTaints, Hold,
 *       RemoveHook, DeletePool, ...);
 *   <li>{@code ironcore_maintenance_pools_marked_unknown_total}: Ready=Unknown writes.
 * </ul>
 */
public final class ControllerMetrics {
  private final MeterRegistry registry;

  public ControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Meters kept in memory only (tests, or when nothing scrapes). */
  public static ControllerMetrics inMemory() {
    return new ControllerMetrics(new SimpleMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Records one reconcile pass of {@code loop} that took {@code duration}. */
  public void reconciled(String loop, String result, Duration duration) {
    Timer.builder("ironcore.maintenance.reconcile")
        .description("Reconcile pass duration")
        .tag("loop", loop)
        .tag("result", result)
        .register(registry)
        .record(duration);
  }

  /** Exposes the depth of {@code loop}'s queue. */
  public void queueDepth(String loop, Supplier<Number> depth) {
    Gauge.builder("ironcore.maintenance.workqueue.depth", depth)
        .description("Keys waiting in the work queue")
        .tag("loop", loop)
        .register(registry);
  }

  public void evicted() {
    Counter.builder("ironcore.maintenance.evictions")
        .description("Machines evicted by a NoExecute taint")
        .register(registry)
        .increment();
  }

  /** Counts a drain step, named like its {@code DrainStep} type. */
  public void drainStep(String step) {
    Counter.builder("ironcore.maintenance.drain.steps")
        .description("Drain steps taken")
        .tag("step", step)
        .register(registry)
        .increment();
  }

  public void poolMarkedUnknown() {
    Counter.builder("ironcore.maintenance.pools.marked.unknown")
        .description("MachinePools set to Ready=Unknown")
        .register(registry)
        .increment();
  }
}

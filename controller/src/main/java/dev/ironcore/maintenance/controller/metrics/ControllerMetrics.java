package dev.ironcore.maintenance.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The controller's Micrometer meters (exported for Prometheus at {@code /metrics}). Names, as
 * Prometheus shows them:
 *
 * <ul>
 *   <li>per loop, controller-runtime's work-queue and reconcile metrics: see {@link
 *       WorkQueueMetrics} ({@code workqueue_*{name}}) and {@link ReconcileMetrics} ({@code
 *       controller_runtime_reconcile_*{controller}});
 *   <li>{@code ironcore_maintenance_evictions_total}: Machines evicted by NoExecute taints;
 *   <li>{@code ironcore_maintenance_drain_steps_total{step}}: drain steps taken (AddTaints, Hold,
 *       RemoveHook, DeletePool, ...);
 *   <li>{@code ironcore_maintenance_pools_marked_unknown_total}: Ready=Unknown writes.
 * </ul>
 */
public final class ControllerMetrics {
  private final MeterRegistry registry;

  /** Registers the process-wide counters in {@code registry}, at 0. */
  public ControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
    evictions().increment(0);
    poolsMarkedUnknown().increment(0);
  }

  /**
   * Meters kept in memory only (tests, or when nothing scrapes), in a Prometheus registry as
   * exported (a simple registry cannot name histogram buckets below 1 ms apart).
   */
  public static ControllerMetrics inMemory() {
    return new ControllerMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Registers the work-queue meters of loop {@code loop} (all at 0). */
  public WorkQueueMetrics workQueue(String loop) {
    return new WorkQueueMetrics(registry, loop, System::nanoTime);
  }

  /** Registers the reconcile meters of loop {@code loop} (all at 0). */
  public ReconcileMetrics reconcile(String loop) {
    return new ReconcileMetrics(registry, loop);
  }

  public void evicted() {
    evictions().increment();
  }

  private Counter evictions() {
    return Counter.builder("ironcore.maintenance.evictions")
        .description("Machines evicted by a NoExecute taint")
        .register(registry);
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
    poolsMarkedUnknown().increment();
  }

  private Counter poolsMarkedUnknown() {
    return Counter.builder("ironcore.maintenance.pools.marked.unknown")
        .description("MachinePools set to Ready=Unknown")
        .register(registry);
  }
}

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
 *   <li>{@code ironcore_maintenance_pools_marked_unknown_total}: Ready=Unknown writes;
 *   <li>{@code ironcore_maintenance_informer_up{resource}}: 1 while the informer has listed and
 *       watches, else 0;
 *   <li>{@code ironcore_maintenance_informer_restarts_total{resource}}: informers replaced after
 *       they stopped;
 *   <li>{@code ironcore_maintenance_informer_decode_errors_total{resource}}: objects that could not
 *       be decoded (kept with their metadata, logged with their key).
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

  /**
   * Exposes an informer's state.
   *
   * @param resource e.g. {@code machines}
   * @param kind the Java kind its objects decode to, e.g. {@code Machine} (for decode errors)
   */
  public void informer(
      String resource,
      String kind,
      java.util.function.BooleanSupplier up,
      Supplier<Number> restarts) {
    Gauge.builder("ironcore.maintenance.informer.up", () -> up.getAsBoolean() ? 1 : 0)
        .description("1 while the informer has listed and watches")
        .tag("resource", resource)
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "ironcore.maintenance.informer.restarts", restarts, r -> r.get().doubleValue())
        .description("Informers replaced after they stopped")
        .tag("resource", resource)
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "ironcore.maintenance.informer.decode.errors",
            kind,
            k -> dev.ironcore.maintenance.api.json.DecodeErrors.count(k))
        .description("Objects that could not be decoded")
        .tag("resource", resource)
        .register(registry);
  }
}

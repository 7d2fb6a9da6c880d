package dev.ironcore.maintenance.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleBiFunction;

/**
 * The controller's Micrometer meters (exported for Prometheus at {@code /metrics}). Names, as
 * Prometheus shows them:
 *
 * <ul>
 *   <li>per loop, controller-runtime's work-queue and reconcile metrics: see {@link
 *       WorkQueueMetrics} ({@code workqueue_*{name}}) and {@link ReconcileMetrics} ({@code
 *       controller_runtime_reconcile_*{controller}});
 *   <li>{@code ironcore_maintenance_evictions_total}: Machines evicted by NoExecute taints (DELETEs
 *       the API server confirmed; one whose answer was lost is not counted);
 *   <li>{@code ironcore_maintenance_eviction_failures_total}: eviction DELETEs the API server
 *       refused (403, 422 from an admission policy, ...) or answered 5xx or not at all, one {@code
 *       EvictionFailed} Event each (retried with back-off): a taint's eviction that never happens,
 *       inside a drain or not;
 *   <li>{@code ironcore_maintenance_drain_steps_total{step}}: drain steps taken (AddTaints, Hold,
 *       RemoveHook, DeletePool, ...), per pass that took the step (also when it needed no write,
 *       e.g. Hold); a pass whose write failed is not counted (it is a {@code
 *       drain_write_failures_total});
 *   <li>{@code ironcore_maintenance_pools_marked_unknown_total}: Ready=Unknown writes;
 *   <li>{@code ironcore_maintenance_pools_renewing_slower_than_grace}: pools whose agent renews its
 *       Lease at an interval of the grace period or more (they flap between Unknown and True);
 *   <li>{@code ironcore_maintenance_drain_write_failures_total}: drain passes whose request (a
 *       taint, condition, hook or finalizer write, or a read) the API server answered 5xx or not at
 *       all, or refused (403, 422 from an admission policy, ...), one {@code DrainWriteFailed}
 *       Event each: a drain that keeps failing before it could taint its pool counts as neither in
 *       progress nor queued, but here;
 *   <li>{@code ironcore_maintenance_drains_in_progress}, {@code ..._drains_queued}, {@code
 *       ..._drains_stuck}: drains holding a slot (pool tainted), waiting for one ({@code
 *       --max-concurrent-drains}), and held longer than {@code --drain-timeout};
 *   <li>{@code ironcore_maintenance_drain_oldest_age_seconds}: age of the oldest unfinished drain
 *       (since its CAPI Machine's deletionTimestamp), 0 when none;
 *   <li>{@code ironcore_maintenance_drain_blocking_machines{pool}}: Machines still blocking each
 *       held drain;
 *   <li>{@code ironcore_maintenance_drain_duration_seconds}: histogram, CAPI Machine deletion to
 *       pre-drain hook released;
 *   <li>{@code ironcore_maintenance_pools{ready,maintenance}}: MachinePools by Ready status ({@code
 *       True}, {@code False}, {@code Unknown}, {@code none}) and Maintenance reason ({@code none},
 *       {@code DrainQueued}, {@code DrainHeld}, {@code Draining}, {@code DrainStuck}, {@code
 *       Drained}, {@code DrainCancelled});
 *   <li>{@code ironcore_maintenance_informer_up{resource}}: 1 while the informer has listed and
 *       watches, else 0;
 *   <li>{@code ironcore_maintenance_informer_restarts_total{resource}}: informers replaced after
 *       they stopped;
 *   <li>{@code ironcore_maintenance_informer_decode_errors_total{resource}}: objects that could not
 *       be decoded (kept with their metadata, logged with their key);
 *   <li>{@code ironcore_maintenance_informer_relists_total{resource,reason}}: full lists after the
 *       first, {@code reason} {@code expired} (the watch's resourceVersion was gone: 410 Gone, e.g.
 *       after etcd compaction or an API server restart), {@code error} (a failure the watch did not
 *       survive) or {@code silent} (a watch silent for 90 s or more had missed changes: its
 *       connection was dropped without a reset);
 *   <li>{@code ironcore_maintenance_informer_watch_silence_seconds{resource}}: seconds since the
 *       informer's watch last heard an event or bookmark.
 * </ul>
 *
 * Counters exist at 0 from the start, not only after their first increase.
 */
public final class ControllerMetrics {
  private final MeterRegistry registry;

  /** Bucket bounds of the drain-duration histogram. */
  static final Duration[] DRAIN_BUCKETS = {
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5),
    Duration.ofMinutes(10),
    Duration.ofMinutes(30),
    Duration.ofHours(1),
    Duration.ofHours(2),
    Duration.ofHours(6)
  };

  /** Ready statuses the pools gauge reports ({@code none}: no Ready condition). */
  public static final List<String> READY_VALUES = List.of("True", "False", "Unknown", "none");

  /** Maintenance reasons the pools gauge reports ({@code none}: no Maintenance condition). */
  public static final List<String> MAINTENANCE_VALUES =
      List.of(
          "none",
          "DrainQueued",
          "DrainHeld",
          "Draining",
          "DrainStuck",
          "Drained",
          "DrainCancelled");

  private final MultiGauge blocking;

  /**
   * The suppliers behind function counters: Micrometer's {@code FunctionCounter} holds its object
   * weakly, and a lambda nobody else references would be collected, freezing the counter at its
   * last scraped value (informer restarts and relists showed 0 after a GC).
   */
  private final List<Object> countedSuppliers = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Registers the process-wide counters in {@code registry}, at 0. */
  public ControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
    evictions().increment(0);
    evictionFailures().increment(0);
    poolsMarkedUnknown().increment(0);
    drainWriteFailures().increment(0);
    this.blocking =
        MultiGauge.builder("ironcore.maintenance.drain.blocking.machines")
            .description("Bound Machines still blocking a held drain, per pool")
            .register(registry);
    drainDurationTimer();
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

  /** Counts an eviction DELETE that failed as an {@code EvictionFailed} Event reports. */
  public void evictionFailed() {
    evictionFailures().increment();
  }

  private Counter evictionFailures() {
    return Counter.builder("ironcore.maintenance.eviction.failures")
        .description(
            "Eviction DELETEs the API server refused or answered 5xx or not at all (an"
                + " EvictionFailed Event each)")
        .register(registry);
  }

  private Counter drainStepCounter(String step) {
    return Counter.builder("ironcore.maintenance.drain.steps")
        .description("Drain steps taken (a pass whose write failed is not counted)")
        .tag("step", step)
        .register(registry);
  }

  private Counter drainWriteFailures() {
    return Counter.builder("ironcore.maintenance.drain.write.failures")
        .description(
            "Drain passes whose request the API server answered 5xx or not at all, or refused"
                + " (a DrainWriteFailed Event each)")
        .register(registry);
  }

  /** Counts a drain pass that failed as a {@code DrainWriteFailed} Event reports. */
  public void drainWriteFailed() {
    drainWriteFailures().increment();
  }

  /** Makes the drain-step counters of {@code steps} exist at 0. */
  public void drainSteps(List<String> steps) {
    steps.forEach(this::drainStepCounter);
  }

  /** Counts a drain step, named like its {@code DrainStep} type. */
  public void drainStep(String step) {
    drainStepCounter(step).increment();
  }

  private Timer drainDurationTimer() {
    return Timer.builder("ironcore.maintenance.drain.duration")
        .description("From the CAPI Machine's deletionTimestamp to the pre-drain hook's release")
        .serviceLevelObjectives(DRAIN_BUCKETS)
        .register(registry);
  }

  /** Records a finished drain (deletion to hook released). */
  public void drainCompleted(Duration took) {
    drainDurationTimer().record(took.isNegative() ? Duration.ZERO : took);
  }

  /**
   * The fleet-wide drain gauges, read at every scrape.
   *
   * @param oldestAgeSeconds seconds since the oldest unfinished drain's CAPI Machine deletion, 0
   *     when none
   */
  public void drainGauges(
      Supplier<Number> inProgress,
      Supplier<Number> queued,
      Supplier<Number> stuck,
      Supplier<Number> oldestAgeSeconds) {
    Gauge.builder("ironcore.maintenance.drains.in.progress", inProgress)
        .description("Pools tainted for maintenance by a deleting CAPI Machine")
        .register(registry);
    Gauge.builder("ironcore.maintenance.drains.queued", queued)
        .description("Drains waiting for a --max-concurrent-drains slot")
        .register(registry);
    Gauge.builder("ironcore.maintenance.drains.stuck", stuck)
        .description("Drains held longer than --drain-timeout")
        .register(registry);
    Gauge.builder("ironcore.maintenance.drain.oldest.age", oldestAgeSeconds)
        .description("Age of the oldest unfinished drain")
        .baseUnit("seconds")
        .register(registry);
  }

  /**
   * Replaces the per-pool blocking-Machines gauge with what {@code byPool} holds now (read under
   * this object's lock, so the last call leaves the newest state even when drain workers call it
   * concurrently with copies of different ages). Synchronized: Micrometer's {@code
   * MultiGauge.register} is not safe for concurrent callers (two drain workers registering the same
   * new pool row at once logged "This Gauge has been already registered" at WARN).
   *
   * @param byPool pool name to blocking Machines, possibly changed by other threads (a concurrent
   *     map)
   */
  public synchronized void blockingMachines(Map<String, Integer> byPool) {
    blocking.register(
        Map.copyOf(byPool).entrySet().stream()
            .map(e -> MultiGauge.Row.of(Tags.of("pool", e.getKey()), e.getValue()))
            .toList(),
        true);
  }

  /**
   * {@code ironcore_maintenance_pools_renewing_slower_than_grace}: pools whose agent renews its
   * Lease at an interval of {@code --machine-pool-lifecycle-grace-period} or more, so that they go
   * Ready=Unknown and back between renewals, read at every scrape.
   */
  public void poolsRenewingSlowerThanGrace(Supplier<Number> count) {
    Gauge.builder("ironcore.maintenance.pools.renewing.slower.than.grace", count)
        .description(
            "MachinePools whose agent renews its Lease no more often than the grace period (they"
                + " flap between Ready=Unknown and True)")
        .register(registry);
  }

  /**
   * MachinePools by Ready status and Maintenance reason, one gauge per combination of {@link
   * #READY_VALUES} and {@link #MAINTENANCE_VALUES}, read at every scrape.
   */
  public void pools(ToDoubleBiFunction<String, String> count) {
    for (String ready : READY_VALUES) {
      for (String maintenance : MAINTENANCE_VALUES) {
        Gauge.builder("ironcore.maintenance.pools", () -> count.applyAsDouble(ready, maintenance))
            .description("MachinePools by Ready status and Maintenance reason")
            .tag("ready", ready)
            .tag("maintenance", maintenance)
            .register(registry);
      }
    }
  }

  public void poolMarkedUnknown() {
    poolsMarkedUnknown().increment();
  }

  private Counter poolsMarkedUnknown() {
    return Counter.builder("ironcore.maintenance.pools.marked.unknown")
        .description("MachinePools set to Ready=Unknown")
        .register(registry);
  }

  /**
   * Exposes how often an informer listed again, by cause.
   *
   * @param resource e.g. {@code machines}
   * @param reason {@code expired}, {@code error} or {@code silent}
   * @param relists the running count (monotonic)
   */
  public void informerRelists(String resource, String reason, Supplier<Number> relists) {
    countedSuppliers.add(relists);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "ironcore.maintenance.informer.relists", relists, r -> r.get().doubleValue())
        .description(
            "Full lists after the first: watch expired (410 Gone), failed, or silent (heard nothing"
                + " and missing changes)")
        .tag("resource", resource)
        .tag("reason", reason)
        .register(registry);
  }

  /**
   * Exposes how long an informer's watch has heard nothing (no event, no bookmark), as {@code
   * ironcore_maintenance_informer_watch_silence_seconds{resource}}: on a quiet resource it grows as
   * long as nothing changes; from 90 s on the watch is probed once a minute ({@code
   * SupervisedInformer}).
   *
   * @param silence seconds since the watch last heard anything
   */
  public void informerWatchSilence(String resource, java.util.function.DoubleSupplier silence) {
    Gauge.builder("ironcore.maintenance.informer.watch.silence", silence::getAsDouble)
        .description("Seconds since the informer's watch last heard an event or bookmark")
        .baseUnit("seconds")
        .tag("resource", resource)
        .register(registry);
  }

  /**
   * The health loop's view of the IronCore API server ({@code ApiServerReach}): exported as {@code
   * ironcore_maintenance_api_server_reachable}, 1 or 0.
   */
  public void apiServerReachable(java.util.function.BooleanSupplier reachable) {
    Gauge.builder(
            "ironcore.maintenance.api.server.reachable", () -> reachable.getAsBoolean() ? 1 : 0)
        .description(
            "1 while the API server that holds the pools' Leases answers GET /readyz, 0 from about"
                + " 6 s without an answer until it answers again (no pool is set Ready=Unknown then)")
        .register(registry);
  }

  /**
   * Exposes an informer's state.
   *
   * @param resource e.g. {@code machines}
   * @param kind kind and group of its objects, e.g. {@code Machine.compute.ironcore.dev} (for
   *     decode errors)
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
    countedSuppliers.add(restarts);
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

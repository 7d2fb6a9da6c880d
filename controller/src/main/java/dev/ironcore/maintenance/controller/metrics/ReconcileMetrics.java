package dev.ironcore.maintenance.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reconcile metrics of one loop, with controller-runtime's names and meaning (label {@code
 * controller} = the loop):
 *
 * <ul>
 *   <li>{@code controller_runtime_reconcile_total{controller,result}}: passes by result: {@code
 *       success} (done), {@code requeue} (asked to run again at once), {@code requeue_after} (asked
 *       to run again after a delay), {@code error} (threw);
 *   <li>{@code controller_runtime_reconcile_errors_total{controller}}: passes that threw anything
 *       ({@link Exception} or {@link Error});
 *   <li>{@code controller_runtime_reconcile_panics_total{controller}}: passes that threw a
 *       Throwable that is not an {@link Exception} (an {@link Error}: Java's closest thing to a Go
 *       panic), also counted as errors;
 *   <li>{@code controller_runtime_reconcile_time_seconds{controller}}: histogram of pass durations
 *       (controller-runtime's buckets, 5 ms to 60 s).
 * </ul>
 *
 * Every counter, for every result, exists at 0 from construction.
 */
public final class ReconcileMetrics {
  /** The values of label {@code result}. */
  public static final List<String> RESULTS =
      List.of("success", "requeue", "requeue_after", "error");

  private static final double[] TIME_BUCKETS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50,
    60
  };

  private final Map<String, Counter> totals = new LinkedHashMap<>();
  private final Counter errors;
  private final Counter panics;
  private final Timer time;

  /** Registers the meters of loop {@code controller} in {@code registry}. */
  public ReconcileMetrics(MeterRegistry registry, String controller) {
    for (String result : RESULTS) {
      totals.put(
          result,
          Counter.builder("controller.runtime.reconcile")
              .description("Total number of reconciliations per controller")
              .tag("controller", controller)
              .tag("result", result)
              .register(registry));
    }
    errors =
        Counter.builder("controller.runtime.reconcile.errors")
            .description("Total number of reconciliation errors per controller")
            .tag("controller", controller)
            .register(registry);
    panics =
        Counter.builder("controller.runtime.reconcile.panics")
            .description("Total number of reconciliation panics (Errors) per controller")
            .tag("controller", controller)
            .register(registry);
    Duration[] buckets = new Duration[TIME_BUCKETS.length];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = Duration.ofNanos(Math.round(TIME_BUCKETS[i] * 1e9));
    }
    time =
        Timer.builder("controller.runtime.reconcile.time")
            .description("Length of time per reconciliation per controller")
            .tag("controller", controller)
            .serviceLevelObjectives(buckets)
            .register(registry);
  }

  /**
   * Records a pass that returned.
   *
   * @param result {@code success}, {@code requeue} or {@code requeue_after}
   * @throws IllegalArgumentException for any other result
   */
  public void returned(String result, Duration took) {
    Counter counter = totals.get(result);
    if (counter == null || "error".equals(result)) {
      throw new IllegalArgumentException("not a result of a returned pass: " + result);
    }
    counter.increment();
    time.record(took);
  }

  /** Records a pass that threw {@code thrown}. */
  public void threw(Throwable thrown, Duration took) {
    totals.get("error").increment();
    errors.increment();
    if (!(thrown instanceof Exception)) {
      panics.increment();
    }
    time.record(took);
  }
}

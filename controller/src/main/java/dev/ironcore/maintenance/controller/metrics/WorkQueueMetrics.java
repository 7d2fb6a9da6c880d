package dev.ironcore.maintenance.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The work-queue metrics of one queue, with the names, label and meaning that client-go's workqueue
 * exports through controller-runtime (label {@code name} = the loop):
 *
 * <ul>
 *   <li>{@code workqueue_depth}: keys added and not yet taken by a worker (a key added again while
 *       it is being processed counts once, as in client-go);
 *   <li>{@code workqueue_adds_total}: adds that queued a key (an add of a key already queued is
 *       absorbed and not counted);
 *   <li>{@code workqueue_retries_total}: rate-limited re-adds (retries after a failure);
 *   <li>{@code workqueue_queue_duration_seconds}: histogram of the time from add to take;
 *   <li>{@code workqueue_work_duration_seconds}: histogram of the time from take to done;
 *   <li>{@code workqueue_unfinished_work_seconds}: sum of the running times of the keys being
 *       processed now (grows while a reconcile is stuck);
 *   <li>{@code workqueue_longest_running_processor_seconds}: running time of the oldest key being
 *       processed now.
 * </ul>
 *
 * Histogram buckets are client-go's: 10 ns to 1000 s, factor 10. Every meter exists (at 0) from
 * construction. The queue calls {@link #added}, {@link #taken}, {@link #done} and {@link #retried};
 * all methods are thread-safe.
 */
public final class WorkQueueMetrics {
  private static final Duration[] BUCKETS = exponentialBuckets(Duration.ofNanos(10), 12);

  private final LongSupplier nanoTime;
  private final Counter adds;
  private final Counter retries;
  private final Timer queueDuration;
  private final Timer workDuration;
  private final Map<String, Long> addedAt = new HashMap<>();
  private final Map<String, Long> startedAt = new HashMap<>();
  private long depth;

  /**
   * Registers the meters of queue {@code name} in {@code registry}.
   *
   * @param nanoTime monotonic time source in nanoseconds (normally {@code System::nanoTime})
   */
  public WorkQueueMetrics(MeterRegistry registry, String name, LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.adds =
        Counter.builder("workqueue.adds")
            .description("Total number of adds handled by workqueue")
            .tag("name", name)
            .register(registry);
    this.retries =
        Counter.builder("workqueue.retries")
            .description("Total number of retries handled by workqueue")
            .tag("name", name)
            .register(registry);
    this.queueDuration =
        Timer.builder("workqueue.queue.duration")
            .description("How long in seconds an item stays in workqueue before being requested")
            .tag("name", name)
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    this.workDuration =
        Timer.builder("workqueue.work.duration")
            .description("How long in seconds processing an item from workqueue takes")
            .tag("name", name)
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    Gauge.builder("workqueue.depth", this, WorkQueueMetrics::depth)
        .description("Current depth of workqueue")
        .tag("name", name)
        .strongReference(true)
        .register(registry);
    Gauge.builder("workqueue.unfinished.work", this, WorkQueueMetrics::unfinishedSeconds)
        .description(
            "How many seconds of work has been done that is in progress and hasn't been observed"
                + " by work_duration")
        .tag("name", name)
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
    Gauge.builder(
            "workqueue.longest.running.processor", this, WorkQueueMetrics::longestRunningSeconds)
        .description(
            "How many seconds has the longest running processor for workqueue been running")
        .tag("name", name)
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  /** Meters for a queue whose metrics nobody reads (tests). */
  public static WorkQueueMetrics inMemory(String name) {
    return new WorkQueueMetrics(
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), name, System::nanoTime);
  }

  /** {@code key} became due for processing (it was not queued yet). */
  public synchronized void added(String key) {
    adds.increment();
    depth++;
    addedAt.putIfAbsent(key, nanoTime.getAsLong());
  }

  /** A worker took {@code key} from the queue. */
  public synchronized void taken(String key) {
    long now = nanoTime.getAsLong();
    depth--;
    Long added = addedAt.remove(key);
    if (added != null) {
      queueDuration.record(Duration.ofNanos(now - added));
    }
    startedAt.put(key, now);
  }

  /** The worker processing {@code key} finished with it. */
  public synchronized void done(String key) {
    Long started = startedAt.remove(key);
    if (started != null) {
      workDuration.record(Duration.ofNanos(nanoTime.getAsLong() - started));
    }
  }

  /** {@code key} was queued again after a failure, with back-off. */
  public void retried() {
    retries.increment();
  }

  private synchronized double depth() {
    return depth;
  }

  private synchronized double unfinishedSeconds() {
    long now = nanoTime.getAsLong();
    return startedAt.values().stream().mapToLong(s -> now - s).sum() / 1e9;
  }

  private synchronized double longestRunningSeconds() {
    long now = nanoTime.getAsLong();
    return startedAt.values().stream().mapToLong(s -> now - s).max().orElse(0) / 1e9;
  }

  private static Duration[] exponentialBuckets(Duration start, int count) {
    Duration[] buckets = new Duration[count];
    long nanos = start.toNanos();
    for (int i = 0; i < count; i++, nanos *= 10) {
      buckets[i] = Duration.ofNanos(nanos);
    }
    return buckets;
  }
}

package dev.ironcore.maintenance.controller.runtime;

import dev.ironcore.maintenance.controller.metrics.WorkQueueMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A work queue of object keys with the guarantees of client-go's: a key is queued at most once,
 * never processed by two workers at once (a key added while being processed is processed again
 * afterwards), delayed adds with at most one pending delay per key (the earliest wins), and per-key
 * exponential back-off for failures. After {@link #close()} nothing is handed out or queued any
 * more; keys being processed may still be marked {@link #done}.
 *
 * <p>It reports client-go's work-queue metrics ({@link WorkQueueMetrics}).
 */
public final class WorkQueue implements AutoCloseable {
  private final Set<String> queue = new LinkedHashSet<>();
  private final Set<String> processing = new HashSet<>();
  private final Set<String> dirty = new HashSet<>();
  private final Map<String, Integer> failures = new HashMap<>();

  /** Pending delayed adds: key to its deadline ({@link System#nanoTime()}). */
  private final Map<String, Long> waiting = new HashMap<>();

  private final ScheduledExecutorService timers;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final WorkQueueMetrics metrics;
  private boolean shutDown;

  /** A queue whose metrics are kept in memory only. */
  public WorkQueue(String name, Duration baseDelay, Duration maxDelay) {
    this(name, baseDelay, maxDelay, WorkQueueMetrics.inMemory(name));
  }

  /**
   * @param name names the timer thread
   * @param baseDelay first retry delay after a failure, doubled per consecutive failure
   * @param maxDelay upper bound of the retry delay
   * @param metrics told about every add, take, done and retry
   */
  public WorkQueue(String name, Duration baseDelay, Duration maxDelay, WorkQueueMetrics metrics) {
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.metrics = metrics;
    this.timers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, name + "-timer");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Queues {@code key} unless it is already queued; a key being processed is queued again after.
   */
  public synchronized void add(String key) {
    if (shutDown) {
      return;
    }
    if (processing.contains(key)) {
      if (dirty.add(key)) {
        metrics.added(key);
      }
      return;
    }
    if (queue.add(key)) {
      metrics.added(key);
      notifyAll();
    }
  }

  /**
   * Queues {@code key} after {@code delay}. A key keeps at most one pending delay: an earlier
   * deadline replaces a later one, a later one is dropped (the key is processed at the earlier
   * deadline and can ask for more then), so repeated requeues never multiply.
   */
  public void addAfter(String key, Duration delay) {
    if (delay.isZero() || delay.isNegative()) {
      add(key);
      return;
    }
    long deadline = System.nanoTime() + delay.toNanos();
    synchronized (this) {
      Long pending = waiting.get(key);
      if (shutDown || (pending != null && pending - deadline <= 0)) {
        return;
      }
      waiting.put(key, deadline);
    }
    var unused =
        timers.schedule(() -> fire(key, deadline), delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void fire(String key, long deadline) {
    synchronized (this) {
      Long pending = waiting.get(key);
      if (pending == null || pending != deadline) {
        return; // superseded by an earlier deadline, which has fired or will
      }
      waiting.remove(key);
    }
    add(key);
  }

  /** Number of keys with a pending delayed add. */
  public synchronized int waitingCount() {
    return waiting.size();
  }

  /**
   * Queues {@code key} after its back-off delay, which doubles with each call until {@link
   * #forget}, and counts a retry.
   *
   * @return the delay chosen
   */
  public Duration addRateLimited(String key) {
    return addRateLimited(key, Duration.ZERO);
  }

  /**
   * As {@link #addRateLimited(String)}, but not sooner than {@code atLeast} (a 429's {@code
   * Retry-After}).
   *
   * @return the delay chosen: the back-off delay or {@code atLeast}, whichever is longer
   */
  public Duration addRateLimited(String key, Duration atLeast) {
    int n;
    synchronized (this) {
      n = failures.merge(key, 1, Integer::sum);
    }
    metrics.retried();
    long millis = baseDelay.toMillis() << Math.min(n - 1, 20);
    Duration backOff = Duration.ofMillis(Math.min(millis, maxDelay.toMillis()));
    Duration delay = atLeast.compareTo(backOff) > 0 ? atLeast : backOff;
    addAfter(key, delay);
    return delay;
  }

  /**
   * Queues each of {@code keys} that waits out a delay now, and resets the back-off of every one of
   * them, as {@link #forget}: a key queued or being processed stays as it is. Nothing after {@link
   * #close()}.
   *
   * @return the keys that waited and are queued now (not those queued already), in the order given
   */
  public synchronized java.util.List<String> retryNow(java.util.Collection<String> keys) {
    java.util.List<String> queued = new java.util.ArrayList<>();
    if (shutDown) {
      return queued;
    }
    for (String key : keys) {
      failures.remove(key);
      if (waiting.remove(key) != null) { // its timer finds no deadline and does nothing
        boolean already = queue.contains(key) || dirty.contains(key);
        add(key);
        if (!already) {
          queued.add(key);
        }
      }
    }
    return queued;
  }

  /** Whether {@code key} has a pending delayed add (a requeue or a failure's back-off). */
  public synchronized boolean isWaiting(String key) {
    return waiting.containsKey(key);
  }

  /** Resets the back-off of {@code key} (after a successful pass). */
  public synchronized void forget(String key) {
    failures.remove(key);
  }

  /** Number of consecutive failures recorded for {@code key}. */
  public synchronized int failures(String key) {
    return failures.getOrDefault(key, 0);
  }

  /** Blocks until a key is available and marks it as processing; null once shut down. */
  public synchronized String take() throws InterruptedException {
    while (queue.isEmpty() && !shutDown) {
      wait();
    }
    if (shutDown) {
      return null;
    }
    String key = queue.iterator().next();
    queue.remove(key);
    processing.add(key);
    metrics.taken(key);
    return key;
  }

  /** Marks {@code key} as no longer processing; queues it again if it was added meanwhile. */
  public synchronized void done(String key) {
    if (processing.remove(key)) {
      metrics.done(key);
    }
    if (dirty.remove(key) && !shutDown && queue.add(key)) {
      notifyAll();
    }
  }

  /** The keys being processed now (taken and not yet done), sorted. */
  public synchronized Set<String> inFlight() {
    return new TreeSet<>(processing);
  }

  /** Number of keys waiting (not counting delayed ones). */
  public synchronized int length() {
    return queue.size();
  }

  /** True once {@link #close()} was called. */
  public synchronized boolean isShutDown() {
    return shutDown;
  }

  /** Stops handing out keys ({@link #take} returns null) and ignores further adds. Idempotent. */
  @Override
  public synchronized void close() {
    shutDown = true;
    timers.shutdownNow();
    notifyAll();
  }
}

package dev.ironcore.maintenance.controller.runtime;

import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.metrics.ReconcileMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named control loop: a {@link WorkQueue} drained by worker threads that call one {@link
 * Reconciler}.
 *
 * <ul>
 *   <li>Anything a pass throws, {@link Error}s included, is caught, logged with the key, counted
 *       ({@link ReconcileMetrics}) and retried with back-off (100 ms doubling to 30 s; after a 429
 *       not before its {@code Retry-After}, {@link ApiFailure#retryAfter}); a worker never dies of
 *       a failing pass. A failed API request is logged as {@link ApiFailure#describe} says: at
 *       DEBUG for a 429 among the first ten failures of a key in a row (the API server shedding
 *       load), at INFO for the first three other failures (a refusal) and for every {@link
 *       ObjectChanged} (a stale read decided again), at WARN from the first when the API server
 *       answered 5xx or not at all, and from the fourth in a row; the first WARN from the fourth on
 *       carries the stack trace, once per run of failures.
 *   <li>{@link #close()} stops handing out keys and waits for the passes in flight to finish (at
 *       most the shutdown grace, 10 s by default) without interrupting them, so a write that has
 *       started completes.
 * </ul>
 */
public final class Loop implements AutoCloseable {
  /** How long {@link #close()} waits for passes in flight. */
  public static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(Loop.class);

  /**
   * Consecutive 429s of a key logged at DEBUG only, as client-go retries a 429 up to 10 times
   * before its caller hears of it.
   */
  static final int THROTTLED_QUIETLY = 10;

  private final String name;
  private final Reconciler reconciler;
  private final WorkQueue queue;
  private final ReconcileMetrics metrics;
  private final Duration shutdownGrace;
  private final List<Thread> workers = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Keys whose current run of failures has been logged with its stack trace (once per run). */
  private final Set<String> stackLogged = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * Keys whose last pass failed for the API server (no answer or 5xx, {@link
   * ApiFailure#isServerSide}, or {@link HeldForApiServer}) without a {@code Retry-After}: they wait
   * out their back-off, and {@link #retryFailedNow} runs them at once.
   */
  private final Set<String> backingOff = java.util.concurrent.ConcurrentHashMap.newKeySet();

  public Loop(String name, Reconciler reconciler) {
    this(name, reconciler, ControllerMetrics.inMemory());
  }

  /**
   * @param metrics where the loop registers its work-queue and reconcile meters
   */
  public Loop(String name, Reconciler reconciler, ControllerMetrics metrics) {
    this(name, reconciler, metrics, SHUTDOWN_GRACE);
  }

  /**
   * @param shutdownGrace how long {@link #close()} waits for passes in flight
   */
  public Loop(
      String name, Reconciler reconciler, ControllerMetrics metrics, Duration shutdownGrace) {
    this.name = name;
    this.reconciler = reconciler;
    this.queue =
        new WorkQueue(
            name, Duration.ofMillis(100), Duration.ofSeconds(30), metrics.workQueue(name));
    this.metrics = metrics.reconcile(name);
    this.shutdownGrace = shutdownGrace;
  }

  public String name() {
    return name;
  }

  /** The queue events are added to. */
  public WorkQueue queue() {
    return queue;
  }

  /** Starts {@code workerCount} threads. */
  public synchronized void start(int workerCount) {
    for (int i = 0; i < workerCount; i++) {
      Thread t =
          dev.ironcore.maintenance.api.json.DeepStacks.newThread(
              this::work, name + "-worker-" + i, true);
      t.setUncaughtExceptionHandler(
          (thread, e) -> LOG.error("{}: worker {} died", name, thread.getName(), e));
      workers.add(t);
      t.start();
    }
  }

  private void work() {
    while (true) {
      String key;
      try {
        key = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (key == null) {
        return; // shut down
      }
      try {
        process(key);
      } finally {
        queue.done(key);
      }
    }
  }

  private void process(String key) {
    long start = System.nanoTime();
    Result result;
    try {
      result = reconciler.reconcile(key);
    } catch (Throwable t) { // Errors too: a bug in one pass must not kill the worker
      metrics.threw(t, Duration.ofNanos(System.nanoTime() - start));
      int n = queue.failures(key) + 1;
      Duration retryAfter = ApiFailure.retryAfter(t);
      if (retryAfter == null && (ApiFailure.isServerSide(t) || t instanceof HeldForApiServer)) {
        backingOff.add(key);
      } else {
        // a refusal, a stale read or a bug: the API server's return mends none
        backingOff.remove(key);
      }
      long delay =
          queue.addRateLimited(key, retryAfter == null ? Duration.ZERO : retryAfter).toMillis();
      if (!(t instanceof Exception)) {
        LOG.error("{} {}: reconcile threw {}, retry {} in {} ms", name, key, t, n, delay, t);
      } else if (retryAfter != null && n <= THROTTLED_QUIETLY) {
        // the API server sheds load: client-go would have retried this without a word
        LOG.debug(
            "{} {}: will retry ({}) in {} ms: {}", name, key, n, delay, ApiFailure.describe(t));
      } else if (t instanceof ObjectChanged || (n <= 3 && !ApiFailure.isServerSide(t))) {
        LOG.info(
            "{} {}: will retry ({}) in {} ms: {}", name, key, n, delay, ApiFailure.describe(t));
      } else if (n <= 3) {
        // the API server (or an admission webhook it calls) failed or did not answer
        LOG.warn(
            "{} {}: will retry ({}) in {} ms: {}", name, key, n, delay, ApiFailure.describe(t));
      } else if (stackLogged.add(key)) {
        LOG.warn(
            "{} {}: failed {} times, will retry in {} ms: {}",
            name,
            key,
            n,
            delay,
            ApiFailure.describe(t),
            t);
      } else {
        // this run of failures has shown its stack already
        LOG.warn(
            "{} {}: failed {} times, will retry in {} ms: {}",
            name,
            key,
            n,
            delay,
            ApiFailure.describe(t));
      }
      return;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    queue.forget(key);
    backingOff.remove(key);
    stackLogged.remove(key);
    if (result.requeueAfter() == null) {
      metrics.returned("success", took);
    } else {
      metrics.returned(result.requeueAfter().isZero() ? "requeue" : "requeue_after", took);
      queue.addAfter(key, result.requeueAfter());
    }
  }

  /**
   * Queues now, with their back-off reset, the keys whose last pass failed for the API server (no
   * answer, a 5xx, or {@link HeldForApiServer}; not a 429, whose {@code Retry-After} stands, nor a
   * refusal or a stale read) and that still wait out their back-off, which reaches 12.8 s after 8
   * failures in a row and 30 s after 10: for when the API server answers again after an outage or
   * restart, so that drains and evictions go on as soon as it and the caches are back rather than
   * up to 30 s later (controller-runtime's queues wait out their back-off, up to 1,000 s). Logged
   * at INFO when any key waited.
   *
   * @param why what happened, for the log, e.g. {@code API server https://10.0.0.1:6443/ answers
   *     again}
   * @return how many keys were queued now
   */
  public int retryFailedNow(String why) {
    List<String> queued = queue.retryNow(List.copyOf(backingOff));
    if (!queued.isEmpty()) {
      LOG.info(
          "{}: {}: {} failed {} retried now instead of after {} back-off: {}",
          name,
          why,
          queued.size(),
          queued.size() == 1 ? "key" : "keys",
          queued.size() == 1 ? "its" : "their",
          queued.size() <= 5 ? queued : queued.subList(0, 5) + " ...");
    }
    return queued.size();
  }

  /**
   * Stops handing out keys: idle workers end at once, busy ones after their current pass. Does not
   * wait. Idempotent.
   */
  public void shutdown() {
    queue.close();
  }

  /**
   * Waits until every worker has ended, at most {@code timeout}.
   *
   * @return true when all ended; false when passes are still running
   */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Thread> started;
    synchronized (this) {
      started = List.copyOf(workers);
    }
    for (Thread t : started) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
      if (t.isAlive()) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@link #shutdown()}, then waits for the passes in flight (at most the shutdown grace); passes
   * still running after it are logged and left to finish on their own (workers are daemon threads).
   * Only the first close (here or in {@link #closeAll}) waits.
   */
  @Override
  public void close() {
    closeAll(List.of(this), shutdownGrace);
  }

  /**
   * Shuts all {@code loops} down at once, then waits for their passes in flight, at most {@code
   * grace} in total; logs the keys of passes still running after it. Loops closed before are
   * skipped.
   */
  public static void closeAll(List<Loop> loops, Duration grace) {
    List<Loop> closing = loops.stream().filter(l -> l.closed.compareAndSet(false, true)).toList();
    closing.forEach(Loop::shutdown);
    long deadline = System.nanoTime() + grace.toNanos();
    for (Loop loop : closing) {
      try {
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        if (!loop.awaitTermination(left)) {
          Set<String> keys = loop.queue.inFlight();
          LOG.warn(
              "{}: passes still running after {} ms, not waiting longer: {}",
              loop.name,
              grace.toMillis(),
              keys);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}

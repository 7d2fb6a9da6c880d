package dev.ironcore.maintenance.controller.runtime;

import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named control loop: a {@link WorkQueue} drained by worker threads that call one {@link
 * Reconciler}. Failures are logged and retried with back-off (100 ms doubling to 30 s).
 */
public final class Loop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Loop.class);

  private final String name;
  private final Reconciler reconciler;
  private final WorkQueue queue;
  private final List<Thread> workers = new ArrayList<>();
  private final ControllerMetrics metrics;

  public Loop(String name, Reconciler reconciler) {
    this(name, reconciler, ControllerMetrics.inMemory());
  }

  /**
   * @param metrics where pass durations and the queue depth are recorded
   */
  public Loop(String name, Reconciler reconciler, ControllerMetrics metrics) {
    this.name = name;
    this.reconciler = reconciler;
    this.queue = new WorkQueue(name, Duration.ofMillis(100), Duration.ofSeconds(30));
    this.metrics = metrics;
    metrics.queueDepth(name, queue::length);
  }

  public String name() {
    return name;
  }

  /** The queue events are added to. */
  public WorkQueue queue() {
    return queue;
  }

  /** Starts {@code workers} threads. */
  public void start(int workerCount) {
    for (int i = 0; i < workerCount; i++) {
      Thread t =
          dev.ironcore.maintenance.api.json.DeepStacks.newThread(
              this::work, name + "-worker-" + i, true);
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
        return;
      }
      long start = System.nanoTime();
      try {
        Result result = reconciler.reconcile(key);
        queue.forget(key);
        if (result.requeueAfter() != null) {
          queue.addAfter(key, result.requeueAfter());
        }
        metrics.reconciled(
            name,
            result.requeueAfter() == null ? "done" : "requeue",
            Duration.ofNanos(System.nanoTime() - start));
      } catch (Exception | StackOverflowError e) {
        // an object too deep for this thread's stack is a failed pass, not the worker's end
        metrics.reconciled(name, "error", Duration.ofNanos(System.nanoTime() - start));
        int n = queue.failures(key) + 1;
        if (n <= 3) {
          LOG.info("{} {}: will retry ({}): {}", name, key, n, e.toString());
        } else {
          LOG.warn("{} {}: failed {} times, will retry", name, key, n, e);
        }
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  }

  @Override
  public void close() {
    queue.close();
    workers.forEach(Thread::interrupt);
  }
}

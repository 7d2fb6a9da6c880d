package dev.ironcore.maintenance.controller;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recorder's own thread: makes the first attempt of Event writes the caller does not wait for
 * ({@link #first}) and retries Event writes that failed (the API server answered 429 or 5xx, or did
 * not answer), as client-go's event broadcaster does: up to {@link #MAX_ATTEMPTS} attempts in all,
 * {@link #INTERVAL} apart, so an Event survives an API server outage of about two minutes. Retries
 * run on one daemon thread of their own, never on a loop's worker; at most {@link #MAX_PENDING}
 * wait at once (further retries are dropped and logged, further first attempts made on the caller's
 * thread). An Event still waiting when the process exits is lost: Events are informational, the
 * state lives in the objects and their conditions.
 */
final class EventRetries {
  private static final Logger LOG = LoggerFactory.getLogger(EventRetries.class);

  /** Attempts in all, the first (failed) one included (client-go: {@code maxTriesPerEvent}). */
  static final int MAX_ATTEMPTS = 12;

  /** Time between attempts (client-go: {@code defaultSleepDuration}). */
  static final Duration INTERVAL = Duration.ofSeconds(10);

  /** Retries waiting at most at once; further failed Events are dropped. */
  static final int MAX_PENDING = 1000;

  private final Duration interval;
  private final AtomicInteger pending = new AtomicInteger();
  private ScheduledThreadPoolExecutor executor;
  private boolean closed;

  EventRetries() {
    this(INTERVAL);
  }

  /**
   * @param interval time between attempts (tests shorten it)
   */
  EventRetries(Duration interval) {
    this.interval = interval;
  }

  /** Retries waiting now. */
  int pending() {
    return pending.get();
  }

  /**
   * Schedules further attempts of an Event write whose first attempt failed.
   *
   * @param what the event, for the log (e.g. {@code Evicted on ns/vm-1})
   * @param attempt one more try; true when it wrote the Event, false when it failed again (it must
   *     not throw)
   */
  void retry(String what, BooleanSupplier attempt) {
    schedule(what, attempt, 2);
  }

  /**
   * Makes the first attempt of an Event write on this thread, at once (after the writes queued
   * before it), and retries it as {@link #retry} when it fails. When {@link #MAX_PENDING} writes
   * already wait, the attempt is made on the caller's thread instead: its first attempt is never
   * dropped for want of room; a retry it then needs is dropped (and logged) while the queue is
   * still full, as every retry beyond {@link #MAX_PENDING}.
   *
   * @param what the event, for the log
   * @param attempt the write; true when it wrote the Event (it must not throw)
   */
  void first(String what, BooleanSupplier attempt) {
    if (pending.incrementAndGet() > MAX_PENDING) {
      pending.decrementAndGet();
      if (!attempt.getAsBoolean()) {
        retry(what, attempt);
      }
      return;
    }
    try {
      executor()
          .execute(
              () -> {
                boolean written = attempt.getAsBoolean();
                pending.decrementAndGet(); // counted until made, so a full queue is seen as full
                if (!written) {
                  retry(what, attempt);
                }
              });
    } catch (RejectedExecutionException e) {
      pending.decrementAndGet();
      LOG.warn("dropped event {}: the recorder is closed", what);
    }
  }

  /**
   * Runs {@code task} once on this thread after {@code delay} (the checks of {@link EventHold}).
   *
   * @param task must not throw
   */
  void after(Duration delay, Runnable task) {
    try {
      executor().schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("recorder closed: a scheduled check is not run");
    }
  }

  /**
   * Stops this thread: the first attempts already queued are still made (up to {@code timeout} in
   * all), retries waiting for their next attempt are dropped, and so is anything handed in later
   * (logged). For a clean stop of the process, after the Events still held were released.
   *
   * @param timeout how long the queued first attempts may take together
   */
  void close(Duration timeout) {
    ScheduledThreadPoolExecutor e;
    synchronized (this) {
      closed = true;
      e = executor;
    }
    if (e == null) {
      return;
    }
    e.shutdown();
    try {
      if (!e.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        e.shutdownNow();
      }
    } catch (InterruptedException ie) {
      e.shutdownNow();
      Thread.currentThread().interrupt();
    }
    int dropped = pending.getAndSet(0); // retries waiting, attempts not made in time
    if (dropped > 0) {
      LOG.warn(
          "dropped {} events on stopping (not written within {} ms)", dropped, timeout.toMillis());
    }
  }

  private void schedule(String what, BooleanSupplier attempt, int n) {
    if (pending.incrementAndGet() > MAX_PENDING) {
      pending.decrementAndGet();
      LOG.warn("dropped event {}: {} event retries already pending", what, MAX_PENDING);
      return;
    }
    try {
      executor()
          .schedule(
              () -> {
                pending.decrementAndGet();
                if (attempt.getAsBoolean()) {
                  LOG.info("recorded event {} at attempt {}", what, n);
                } else if (n >= MAX_ATTEMPTS) {
                  LOG.warn("dropped event {} after {} attempts", what, n);
                } else {
                  schedule(what, attempt, n + 1);
                }
              },
              interval.toMillis(),
              TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      pending.decrementAndGet();
      LOG.warn("dropped event {}: the recorder is closed", what);
    }
  }

  private synchronized ScheduledThreadPoolExecutor executor() {
    if (closed) {
      throw new RejectedExecutionException("closed");
    }
    if (executor == null) {
      executor =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "event-retries");
                t.setDaemon(true);
                return t;
              });
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }
    return executor;
  }
}

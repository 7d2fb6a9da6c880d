package dev.ironcore.maintenance.controller.informers;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks every {@link SupervisedInformer} once a second (restarting stopped ones) and answers the
 * probes: ready while every informer is up (or lost its watch briefly); healthy unless one stayed
 * down longer than a threshold (then Kubernetes restarts the process, the last resort for a stuck
 * client).
 */
public final class InformerWatchdog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InformerWatchdog.class);

  private final List<SupervisedInformer<?>> informers;
  private final Duration downThreshold;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "informer-watchdog");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param downThreshold how long an informer may stay down before {@link #healthy()} is false
   */
  public InformerWatchdog(
      List<SupervisedInformer<?>> informers, Duration downThreshold, Clock clock) {
    this.informers = List.copyOf(informers);
    this.downThreshold = downThreshold;
    this.clock = clock;
  }

  /** Run by the next check that finds every informer up; null when none waits. */
  private final java.util.concurrent.atomic.AtomicReference<Runnable> whenAllUp =
      new java.util.concurrent.atomic.AtomicReference<>();

  /**
   * Runs {@code action} once, on this watchdog's thread, at the first check (within a second) that
   * finds every informer {@link SupervisedInformer#up() up}: listed and watching, so that what it
   * decides reads caches that caught up after an outage. A later call before that replaces an
   * action still waiting.
   */
  public void runOnceAllUp(Runnable action) {
    whenAllUp.set(action);
  }

  public void start() {
    timer.scheduleWithFixedDelay(this::checkAll, 1, 1, TimeUnit.SECONDS);
  }

  private void checkAll() {
    for (SupervisedInformer<?> i : informers) {
      try {
        i.check();
      } catch (RuntimeException e) {
        LOG.warn("informer {}: check failed", i.resource(), e);
      }
    }
    if (whenAllUp.get() != null && informers.stream().allMatch(SupervisedInformer::up)) {
      Runnable action = whenAllUp.getAndSet(null);
      if (action != null) {
        try {
          action.run();
        } catch (RuntimeException e) {
          LOG.warn("an action waiting for every informer to be up failed", e);
        }
      }
    }
  }

  /**
   * True while every informer has listed and watches, or has been without its watch for less than
   * {@link SupervisedInformer#BRIEF_LOSS} (a watch the API server ended and fabric8 reopens).
   */
  public boolean ready() {
    return informers.stream().allMatch(SupervisedInformer::upOrBrieflyLost);
  }

  /** False once some informer has been down longer than the threshold. */
  public boolean healthy() {
    Instant limit = clock.instant().minus(downThreshold);
    return informers.stream()
        .map(SupervisedInformer::downSince)
        .allMatch(since -> since == null || since.isAfter(limit));
  }

  /** Names of the informers that are not up (for the probe's body). */
  public List<String> down() {
    return informers.stream().filter(i -> !i.up()).map(SupervisedInformer::resource).toList();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

package dev.ironcore.maintenance.controller.runtime;

import java.time.Duration;

/**
 * What a reconcile pass asks of its queue: {@link #done()} (wait for the next event or resync) or
 * {@link #requeueAfter(Duration)} (come back after that delay even without an event). Failures are
 * thrown, and the queue retries them with exponential back-off.
 */
public record Result(Duration requeueAfter, String message) {

  public static Result done() {
    return new Result(null, null);
  }

  /** Requeue after {@code delay} (non-negative); {@code message} says why, for the log. */
  public static Result requeueAfter(Duration delay, String message) {
    return new Result(delay, message);
  }

  /** Requeue at once: the pass made one step and the next step should follow. */
  public static Result again(String message) {
    return new Result(Duration.ZERO, message);
  }
}

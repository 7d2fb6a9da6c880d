package dev.ironcore.maintenance.testkit.faults;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The error a {@link FaultProxy} answers instead of forwarding, while one is set: which status, to
 * which fraction of requests, until when. Pure state and decision; the proxy's handler writes the
 * reply ({@link StatusReply}). Thread-safe: the plan is replaced as a whole.
 */
final class ErrorInjection {

  /**
   * One error plan.
   *
   * @param status 429 or 500 (any 4xx/5xx works; 429 gets {@code Retry-After})
   * @param until {@link System#nanoTime()} after which requests are forwarded again
   * @param fraction share of requests answered with the error, 0 (none) to 1 (all)
   * @param retryAfter the {@code Retry-After} of a 429, whole seconds
   */
  record Plan(int status, long until, double fraction, Duration retryAfter) {}

  private volatile Plan plan;

  /**
   * Answers {@code status} to {@code fraction} of the requests from now for {@code duration}.
   *
   * @throws IllegalArgumentException if status is not 4xx/5xx, the duration is negative or the
   *     fraction is outside [0, 1]
   */
  void set(int status, Duration duration, double fraction, Duration retryAfter) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("status must be 4xx or 5xx, got " + status);
    }
    if (duration.isNegative() || fraction < 0 || fraction > 1) {
      throw new IllegalArgumentException(
          "duration must be >= 0 and fraction in [0, 1], got " + duration + ", " + fraction);
    }
    plan = new Plan(status, System.nanoTime() + duration.toNanos(), fraction, retryAfter);
  }

  void clear() {
    plan = null;
  }

  /** True while a plan is set and its duration has not passed. */
  boolean active() {
    Plan p = plan;
    return p != null && System.nanoTime() - p.until() < 0;
  }

  /** The plan that applies to this request, or null to forward it. */
  Plan decide() {
    Plan p = plan;
    if (p == null || System.nanoTime() - p.until() >= 0) {
      return null;
    }
    return p.fraction() >= 1 || ThreadLocalRandom.current().nextDouble() < p.fraction() ? p : null;
  }
}

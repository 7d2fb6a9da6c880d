package dev.ironcore.maintenance.controller.drain;

import java.time.Duration;

/**
 * How drains are bounded and paced.
 *
 * @param drainTimeout {@code --drain-timeout}: a drain holding the pre-drain hook longer than this,
 *     counted from this drain's maintenance taint, else from the CAPI Machine's {@code
 *     deletionTimestamp}, is reported {@code DrainStuck} (never released by force), also while its
 *     own write keeps failing ({@link FailingWrite}); {@link Duration#ZERO} turns the detection off
 * @param maxConcurrentDrains {@code --max-concurrent-drains}: at most this many pools carry the
 *     maintenance taints for a deleting CAPI Machine at once; 0 means unlimited
 */
public record DrainPolicy(Duration drainTimeout, int maxConcurrentDrains) {

  /** Default of {@code --drain-timeout}. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofMinutes(30);

  public DrainPolicy {
    if (drainTimeout == null || drainTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "drain timeout must be 0 or positive, got " + drainTimeout);
    }
    if (maxConcurrentDrains < 0) {
      throw new IllegalArgumentException(
          "max concurrent drains must be 0 (unlimited) or positive, got " + maxConcurrentDrains);
    }
  }

  /** 30 min drain timeout, unlimited concurrent drains. */
  public static DrainPolicy defaults() {
    return new DrainPolicy(DEFAULT_DRAIN_TIMEOUT, 0);
  }

  public DrainPolicy withDrainTimeout(Duration d) {
    return new DrainPolicy(d, maxConcurrentDrains);
  }

  public DrainPolicy withMaxConcurrentDrains(int n) {
    return new DrainPolicy(drainTimeout, n);
  }
}

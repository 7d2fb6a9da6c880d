package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * How often a held drain rewrites its progress: while a pool drains, every eviction changes the
 * blocking Machines, so the {@code Draining} message (and the {@code DrainBlocked} event naming
 * them) would change on every pass — hundreds of writes for one large pool. A change of the message
 * alone is written at most once per {@link #INTERVAL}; a change of status or reason (the drain
 * starting, completing, getting stuck) is written at once.
 */
public final class ProgressThrottle {
  /** Least time between two writes of a changed {@code Draining} message: 2 s. */
  public static final Duration INTERVAL = Duration.ofSeconds(2);

  private ProgressThrottle() {}

  /**
   * @param pool the pool as cached (null: nothing to hold back)
   * @param wanted the condition the drain wants on it
   * @param lastWrite when this process last wrote the pool's Maintenance condition, or null
   * @param now the clock's time
   * @return how long to wait before writing {@code wanted}; null to write (or skip) now
   */
  public static Duration delay(
      MachinePool pool, MaintenanceCondition wanted, Instant lastWrite, Instant now) {
    if (pool == null
        || wanted == null
        || lastWrite == null
        || !MaintenanceCondition.DRAINING_REASON.equals(wanted.reason())) {
      return null;
    }
    Condition current =
        Conditions.find(
            pool.getStatus() == null ? null : pool.getStatus().getConditions(),
            MaintenanceCondition.TYPE);
    if (current == null
        || !Objects.equals(current.getStatus(), wanted.status())
        || !Objects.equals(current.getReason(), wanted.reason())
        || Objects.equals(current.getMessage(), wanted.message())) {
      return null;
    }
    Duration left = Duration.between(now, lastWrite.plus(INTERVAL));
    return left.isNegative() || left.isZero() ? null : left;
  }
}

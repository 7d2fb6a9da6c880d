package dev.ironcore.maintenance.controller.orphan;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether the poollet finalizer of a Machine is orphaned: the Machine is deleting, holds {@link
 * Names#POOLLET_FINALIZER} and is bound to a pool that does not exist, so no poollet can ever
 * remove it. Such a finalizer is released once the situation has lasted the grace period ({@code
 * --orphaned-machine-grace}), counted from when this process first saw it (local clock; object
 * timestamps are never compared with it).
 */
public final class OrphanDecision {
  private OrphanDecision() {}

  /** What to do with a Machine. */
  public sealed interface Outcome {}

  /** Not an orphaned finalizer (forget any timer). */
  public record NotOrphaned() implements Outcome {}

  /** Orphaned, but not for long enough: look again after {@code delay}. */
  public record Wait(Duration delay) implements Outcome {}

  /** Orphaned for the whole grace period: remove the poollet finalizer. */
  public record Release() implements Outcome {}

  /** True when {@code machine} holds an orphaned poollet finalizer right now. */
  public static boolean orphaned(Machine machine, boolean poolExists) {
    var meta = machine.getMetadata();
    return meta.getDeletionTimestamp() != null
        && meta.getFinalizers() != null
        && meta.getFinalizers().contains(Names.POOLLET_FINALIZER)
        && machine.boundPoolName() != null
        && !poolExists;
  }

  /**
   * @param firstSeen when this process first saw the Machine orphaned (null: now is the first time)
   * @param now the local clock's now
   * @param grace {@code --orphaned-machine-grace}
   */
  public static Outcome decide(
      Machine machine, boolean poolExists, Instant firstSeen, Instant now, Duration grace) {
    if (!orphaned(machine, poolExists)) {
      return new NotOrphaned();
    }
    Instant since = firstSeen == null ? now : firstSeen;
    Duration left = Duration.between(now, since.plus(grace));
    return left.isNegative() || left.isZero() ? new Release() : new Wait(left);
  }
}

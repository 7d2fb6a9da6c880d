package dev.ironcore.maintenance.controller.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Pool health (IronCore IEP-15, {@code machinepool_lifecycle_controller}) as a pure function: a
 * pool whose Lease {@code renewTime} and Ready condition did not move for the grace period is
 * marked {@code Ready=Unknown} once. Change times are local-clock instants of when this process saw
 * a change; timestamps inside objects are only compared for equality.
 */
public final class PoolHealthDecision {
  private PoolHealthDecision() {}

  /** How many of the latest renew intervals {@link Seen#renewInterval()} takes the shortest of. */
  static final int RECENT_INTERVALS = 5;

  /**
   * Remembered state of one pool.
   *
   * @param observation what was seen last
   * @param lastChange local time when the observation last changed (or was first seen)
   * @param recentIntervals the times between consecutive Lease {@code renewTime}s this process saw
   *     (both written by the agent, so no clock of ours is involved), the latest {@link
   *     #RECENT_INTERVALS} at most, oldest first; empty before two were seen (or when they did not
   *     parse, or went backwards)
   */
  public record Seen(
      PoolHealthObservation observation, Instant lastChange, List<Duration> recentIntervals) {
    /** Without a known renew interval. */
    public Seen(PoolHealthObservation observation, Instant lastChange) {
      this(observation, lastChange, List.of());
    }

    public Seen {
      recentIntervals = List.copyOf(recentIntervals);
    }

    /**
     * The agent's renew interval as this process can tell it: the shortest of the {@link
     * #recentIntervals()} (a pass that came late sees two renewals as one, so the shortest; only of
     * the latest few, so that one early renewal, an agent restarting, does not stand for good), or
     * null before two intervals were seen: one alone may be a jump of the agent's clock (fresh
     * eyes, session 43: a renewTime set an hour ahead once, then no renewal, read as an agent
     * renewing every hour, and the pool counted as flapping for that hour). The trade-off of a
     * window: passes late by more than the agent's interval, again and again (a controller far
     * behind), see every renewal as one of several, and the interval reads longer than it is.
     */
    public Duration renewInterval() {
      return recentIntervals.size() < 2
          ? null
          : recentIntervals.stream().min(Duration::compareTo).orElse(null);
    }

    /**
     * {@link #recentIntervals()} with {@code interval} added, the oldest dropped past the limit.
     */
    Seen withInterval(Duration interval) {
      List<Duration> recent = new ArrayList<>(recentIntervals);
      recent.add(interval);
      return new Seen(
          observation,
          lastChange,
          recent.subList(Math.max(0, recent.size() - RECENT_INTERVALS), recent.size()));
    }
  }

  /**
   * @param seen the new state to remember
   * @param markUnknown write {@code Ready=Unknown} now
   * @param requeueAfter when to look again without an event (never negative)
   */
  public record Outcome(Seen seen, boolean markUnknown, Duration requeueAfter) {}

  /**
   * @param previous the remembered state, or null on first sighting (also after a restart), which
   *     starts the timer
   * @param current what is observed now
   * @param now local clock
   * @param gracePeriod {@code --machine-pool-lifecycle-grace-period}
   */
  public static Outcome decide(
      Seen previous, PoolHealthObservation current, Instant now, Duration gracePeriod) {
    return decide(previous, current, now, gracePeriod, Instant.EPOCH);
  }

  /**
   * As {@link #decide(Seen, PoolHealthObservation, Instant, Duration)}, with the grace period
   * counted from {@code observedSince} where that is later than the pool's last change: an agent
   * cannot renew its Lease while the API server does not answer, so the pool gets the whole grace
   * period after the API server answers again (see {@link ApiServerReach#observedSince()}).
   *
   * @param observedSince local time since when the API server answered without a gap; {@link
   *     Instant#EPOCH} when it never failed
   */
  public static Outcome decide(
      Seen previous,
      PoolHealthObservation current,
      Instant now,
      Duration gracePeriod,
      Instant observedSince) {
    boolean changed =
        previous == null
            || current.leaseRenewTimeChanged(previous.observation())
            || current.readyConditionChanged(previous.observation());
    List<Duration> intervals = previous == null ? List.of() : previous.recentIntervals();
    Seen seen =
        changed
            ? new Seen(current, now, intervals)
            : new Seen(current, previous.lastChange(), intervals);
    if (previous != null && current.leaseRenewTimeChanged(previous.observation())) {
      Duration between = between(previous.observation().leaseRenewTime(), current.leaseRenewTime());
      if (between != null) {
        seen = seen.withInterval(between);
      }
    }
    Instant from = seen.lastChange().isAfter(observedSince) ? seen.lastChange() : observedSince;
    Instant deadline = from.plus(gracePeriod);
    if (now.isBefore(deadline)) {
      return new Outcome(seen, false, Duration.between(now, deadline));
    }
    boolean alreadyUnknown = "Unknown".equals(current.readyStatus());
    return new Outcome(seen, !alreadyUnknown, gracePeriod);
  }

  /** {@code to - from} when both parse as instants and it is positive, else null. */
  private static Duration between(String from, String to) {
    if (from == null || to == null) {
      return null;
    }
    try {
      Duration d = Duration.between(Instant.parse(from), Instant.parse(to));
      return d.isNegative() || d.isZero() ? null : d;
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }
}

package dev.ironcore.maintenance.controller.health;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Health loop (IronCore IEP-15) keyed by pool name: remembers per pool, in memory, the last seen
 * Lease {@code renewTime} and Ready condition, and marks the pool {@code Ready=Unknown} (reason
 * {@code MachinePoolStatusUnknown}) once nothing moved for the grace period. Before writing it
 * reads the Lease from the API server (one GET): a cache that lags (a Lease watch that stalled, or
 * this process paused and woken at its deadlines before the watch caught up) must not set a pool
 * Unknown whose poollet renewed meanwhile; a renewal found that way restarts the grace period. An
 * API server that did not answer (down, or frozen: {@link ApiServerReach}) restarts every pool's
 * grace period when it answers again, since no agent could renew meanwhile. The pool itself is
 * guarded by its resourceVersion ({@link PoolUnknownWriter}). Always requeues at the next deadline;
 * forgets deleted pools.
 */
public final class PoolHealthReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(PoolHealthReconciler.class);

  private final KubernetesClient client;
  private final ClusterCache cache;
  private final Clock clock;
  private final Duration gracePeriod;
  private final Map<String, PoolHealthDecision.Seen> seen = new ConcurrentHashMap<>();
  private final ControllerMetrics metrics;
  private final EventRecorder events;
  private final PoolUnknownWriter writer;
  private final ApiServerReach reach;

  /** Reason of the Warning event on a pool set to Ready=Unknown. */
  public static final String POOL_UNKNOWN_EVENT = "PoolUnknown";

  /**
   * @param events records {@link #POOL_UNKNOWN_EVENT} on a pool set to Ready=Unknown
   * @param reach since when {@code client}'s API server answers (started by the caller)
   */
  public PoolHealthReconciler(
      KubernetesClient client,
      ClusterCache cache,
      Clock clock,
      Duration gracePeriod,
      ControllerMetrics metrics,
      EventRecorder events,
      ApiServerReach reach) {
    this.client = client;
    this.cache = cache;
    this.clock = clock;
    this.gracePeriod = gracePeriod;
    this.metrics = metrics;
    this.events = events;
    this.reach = reach;
    this.writer = new PoolUnknownWriter(client, clock);
  }

  @Override
  public Result reconcile(String poolName) {
    MachinePool pool = cache.pool(poolName);
    if (pool == null) {
      seen.remove(poolName);
      return Result.done();
    }
    if (pool.decodeError() != null) {
      return Result.done(); // its conditions are unknown; logged and counted when it was read
    }
    PoolHealthObservation now = observe(pool, renewTime(cache.lease(poolName)));
    PoolHealthDecision.Outcome outcome =
        PoolHealthDecision.decide(
            seen.get(poolName), now, clock.instant(), gracePeriod, reach.observedSince());
    seen.put(poolName, outcome.seen());
    if (outcome.markUnknown()) {
      // the cache may lag (a stalled Lease watch, this process paused): the API server's Lease
      // decides, as a poollet that renewed meanwhile must not see its pool go Unknown
      Lease liveLease = client.leases().inNamespace(Names.LEASE_NAMESPACE).withName(poolName).get();
      String live = renewTime(liveLease);
      PoolHealthDecision.Outcome after =
          PoolHealthDecision.decide(
              outcome.seen(), now, clock.instant(), gracePeriod, reach.observedSince());
      if (!after.markUnknown()) {
        // the read waited for an API server that stopped answering: its agent gets the grace
        // period after it answers again
        return Result.requeueAfter(after.requeueAfter(), "next health deadline");
      }
      if (!java.util.Objects.equals(live, now.leaseRenewTime())) {
        PoolHealthObservation fresh = observe(pool, live);
        // (the renewals the lagging cache missed are unknown: the renew interval stays)
        seen.put(
            poolName,
            new PoolHealthDecision.Seen(fresh, clock.instant(), outcome.seen().recentIntervals()));
        LOG.info(
            "pool {}: the cached Lease lags behind the API server's (renewTime {}): not Unknown",
            poolName,
            live);
        return Result.requeueAfter(gracePeriod, "next health deadline");
      }
      markUnknown(pool, now, outcome.seen().renewInterval(), liveLease != null);
    }
    return Result.requeueAfter(outcome.requeueAfter(), "next health deadline");
  }

  /**
   * Pools whose agent this process saw renew its Lease at an interval of the grace period or more
   * (the shortest of the latest intervals seen, {@link PoolHealthDecision.Seen#renewInterval()})
   * and that still change (a renewal, or our Unknown write) within that interval plus the grace
   * period: each goes Ready=Unknown and back between its renewals, as its {@code PoolUnknown}
   * Events say. A pool whose agent stopped for good is not counted once that time has passed (fresh
   * eyes, session 42: it was, until the pool was deleted). Read at every scrape ({@code
   * ironcore_maintenance_pools_renewing_slower_than_grace}).
   */
  public int renewingSlowerThanGrace() {
    Instant now = clock.instant();
    int count = 0;
    for (PoolHealthDecision.Seen s : seen.values()) {
      Duration interval = s.renewInterval();
      if (interval != null
          && interval.compareTo(gracePeriod) >= 0
          && !now.isAfter(s.lastChange().plus(interval).plus(gracePeriod))) {
        count++;
      }
    }
    return count;
  }

  /** The Lease's {@code renewTime} as an instant (cache and API server format it differently). */
  private static String renewTime(Lease lease) {
    return lease == null || lease.getSpec() == null || lease.getSpec().getRenewTime() == null
        ? null
        : lease.getSpec().getRenewTime().toInstant().toString();
  }

  private static PoolHealthObservation observe(MachinePool pool, String leaseRenewTime) {
    Condition ready =
        Conditions.find(
            pool.getStatus() == null ? null : pool.getStatus().getConditions(),
            Names.READY_CONDITION);
    return new PoolHealthObservation(
        leaseRenewTime,
        ready == null ? null : ready.getStatus(),
        ready == null ? null : ready.getObservedGeneration());
  }

  /**
   * Writes Ready=Unknown (see {@link PoolUnknownWriter}), then counts it and records the event;
   * nothing when a fresh read of the pool shows its Ready condition moved since {@code decided}.
   */
  private void markUnknown(
      MachinePool cached,
      PoolHealthObservation decided,
      Duration renewInterval,
      boolean leaseExists) {
    String poolName = cached.getMetadata().getName();
    MachinePool written =
        writer.markUnknown(
            cached,
            live -> !observe(live, decided.leaseRenewTime()).readyConditionChanged(decided));
    if (written == null) {
      return;
    }
    metrics.poolMarkedUnknown();
    String why =
        silence(gracePeriod, decided.leaseRenewTime(), renewInterval, poolName, leaseExists);
    events.recordInBackground(
        written,
        "Warning",
        POOL_UNKNOWN_EVENT,
        why + ": Ready=Unknown (" + Names.POOL_STATUS_UNKNOWN_MESSAGE + ")");
    LOG.info(
        "pool {}: {}: set Ready=Unknown ({})", poolName, why, Names.POOL_STATUS_UNKNOWN_REASON);
  }

  /**
   * What the pool's agent failed to do, for the {@code PoolUnknown} Event and the log: the grace
   * period this process watched (in seconds) and when the Lease was last renewed, as the silence
   * may be much longer than the grace period (this process started, or the API server answered
   * again, after the agent stopped), e.g. {@code no Lease renewal or Ready change within the grace
   * period (10 s); Lease ironcore-machinepool-lease/pool-1 last renewed at 2026-12-05T12:00:00Z}.
   *
   * <p>When the agent's renewals were never less than the grace period apart, the message says so
   * instead of when the Lease was last renewed: a live agent that renews that seldom has its pool
   * go Unknown between renewals, again and again (a grace period below the agents' renew interval
   * is a misconfiguration this process cannot otherwise tell from a dead agent), and each flap then
   * has the same message, so the recorder counts them on one Event ({@code count}, {@code
   * lastTimestamp}) instead of creating one per flap (an Event storm across a fleet). The Lease's
   * {@code leaseDurationSeconds} says nothing about it: agents renew well within it (a
   * kubelet-style agent renews a 40 s Lease every 10 s).
   *
   * @param leaseRenewTime the Lease's {@code renewTime} as an ISO-8601 instant, or null when the
   *     pool has no Lease (or one never renewed)
   * @param renewInterval the shortest time between two of the agent's latest renewals seen ({@link
   *     PoolHealthDecision.Seen#renewInterval()}), or null
   * @param leaseExists the API server has the Lease (read right before the write); without it the
   *     message says the Lease does not exist rather than that it has no renewTime
   */
  static String silence(
      Duration gracePeriod,
      String leaseRenewTime,
      Duration renewInterval,
      String poolName,
      boolean leaseExists) {
    String lease = "Lease " + Names.LEASE_NAMESPACE + "/" + poolName;
    String why =
        "no Lease renewal or Ready change within the grace period (" + seconds(gracePeriod) + "); ";
    if (renewInterval != null && renewInterval.compareTo(gracePeriod) >= 0) {
      // no renewTime here: the same text for every flap, so they count on one Event (xN)
      return why
          + "its agent renewed "
          + lease
          + " about every "
          + roughly(renewInterval)
          + ": an agent that renews that seldom has its pool go Unknown between"
          + " renewals while it is alive (set --machine-pool-lifecycle-grace-period above its"
          + " renew interval)";
    }
    return why
        + (leaseRenewTime == null
            ? (leaseExists
                // fresh eyes, session 47: "never renewed" of a Lease whose renewTime was removed
                ? "no renewTime in " + lease + " (never renewed, or removed)"
                : lease + " does not exist (deleted, or never created)")
            : lease + " last renewed at " + leaseRenewTime);
  }

  /**
   * A renew interval for the message: to the half second below 10 s, to 5 s from there ({@code 2.5
   * s} for 2.44 to 2.74 s, {@code 10 s} for 9.75 to 12.49 s), so that the shortest interval seen
   * (of the latest few), which settles as more renewals are seen (fresh eyes: 11 s, then 10.2 s, of
   * an agent renewing every 10 s), keeps the message, and the flaps count on one Event.
   */
  static String roughly(Duration d) {
    BigDecimal s = BigDecimal.valueOf(d.toMillis(), 3);
    BigDecimal step =
        d.compareTo(Duration.ofMillis(9_750)) >= 0 ? BigDecimal.valueOf(5) : new BigDecimal("0.5");
    return s.divide(step, 0, RoundingMode.HALF_UP)
            .max(BigDecimal.ONE) // never "0 s"
            .multiply(step)
            .stripTrailingZeros()
            .toPlainString()
        + " s";
  }

  /** {@code 50 s}, {@code 2.5 s}: seconds, with the milliseconds where there are any. */
  static String seconds(Duration d) {
    return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
  }
}

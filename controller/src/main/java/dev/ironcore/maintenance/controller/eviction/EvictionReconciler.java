package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.runtime.ApiFailure;
import dev.ironcore.maintenance.controller.runtime.Keys;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Eviction loop (IronCore IEP-21): DELETEs a bound Machine whose pool carries a NoExecute taint it
 * does not tolerate, after recording a Normal {@code Evicted} event on it (first, so a crash
 * between the two cannot lose the event). The machinepoollet then shuts the VM down and releases
 * its finalizer. Key: the Machine's {@code namespace/name}.
 *
 * <p>With delayed eviction (the API server serves v1alpha2), a Machine that tolerates a taint only
 * with {@code tolerationSeconds} is requeued at its deadline ({@link EvictionDecision}); a pool or
 * Machine change re-runs the decision earlier, so removing the taint or raising the seconds cancels
 * or moves the eviction. Deadlines come from the taints' {@code timeAdded}, so a restart keeps
 * them; for a taint without one, from this process's first sighting ({@link TaintSightings}).
 *
 * <p>The DELETE is conditional on the resourceVersion the decision was made on ({@link
 * EvictionDelete}): a cache that lags behind the API server (a watch reconnecting or relisting)
 * cannot evict, count and announce the same Machine twice; the pass fails and the queue retries it
 * on a fresher read. The pool's taints are confirmed against the API server before the DELETE
 * ({@link LivePoolCheck}): a lagging pool cache cannot evict on a taint already removed.
 */
public final class EvictionReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(EvictionReconciler.class);

  private final KubernetesClient client;
  private final ClusterCache cache;
  private final EventRecorder events;
  private final ControllerMetrics metrics;
  private final Clock clock;
  private final boolean delayed;
  private final TaintSightings sightings = new TaintSightings();
  private final LivePoolCheck livePools;

  /** Without delayed eviction (v1alpha1-only API servers), on the system clock. */
  public EvictionReconciler(
      KubernetesClient client,
      ClusterCache cache,
      EventRecorder events,
      ControllerMetrics metrics) {
    this(client, cache, events, metrics, Clock.systemUTC(), false);
  }

  /**
   * @param clock the current time for deadlines
   * @param delayed whether {@code tolerationSeconds} delays eviction (the cache reads v1alpha2)
   */
  public EvictionReconciler(
      KubernetesClient client,
      ClusterCache cache,
      EventRecorder events,
      ControllerMetrics metrics,
      Clock clock,
      boolean delayed) {
    this.client = client;
    this.cache = cache;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.delayed = delayed;
    this.livePools =
        new LivePoolCheck(name -> client.resources(cache.poolClass()).withName(name).get());
  }

  @Override
  public Result reconcile(String key) {
    Machine machine = cache.machine(key);
    if (machine == null) {
      return Result.done();
    }
    String poolName = machine.boundPoolName();
    MachinePool pool = cache.pool(poolName);
    Instant now = clock.instant();
    if (poolName != null) {
      sightings.retain(
          poolName, pool == null || pool.getSpec() == null ? null : pool.getSpec().getTaints());
    }
    EvictionDecision.Outcome outcome =
        EvictionDecision.decide(
            machine, pool, now, t -> sightings.firstSeen(poolName, t, now), delayed);
    if (outcome.evict()) {
      // the DELETE cannot be undone: decide on the pool as the API server has it (LivePoolCheck)
      MachinePool live = livePools.confirm(poolName, pool, now);
      if (live != pool) {
        // the first sightings of taints without timeAdded follow the pool the API server has
        sightings.retain(
            poolName, live == null || live.getSpec() == null ? null : live.getSpec().getTaints());
        outcome =
            EvictionDecision.decide(
                machine, live, now, t -> sightings.firstSeen(poolName, t, now), delayed);
        if (!outcome.evict()) {
          LOG.info(
              "machine {} not evicted: MachinePool {} as the API server has it now ({}) differs"
                  + " from the cache, which lags",
              key,
              poolName,
              live == null ? "gone" : "resourceVersion " + live.getMetadata().getResourceVersion());
        }
      }
    }
    if (!outcome.evict()) {
      return outcome.deadline() == null
          ? Result.done()
          : Result.requeueAfter(delay(now, outcome.deadline()), outcome.reason());
    }
    String taints =
        outcome.untolerated().stream().map(Object::toString).collect(Collectors.joining(", "));
    // the event first, as Kubernetes' taint-eviction controller does: a crash between the two
    // repeats the eviction (and the event) after the restart, but never loses the event; a
    // DELETE refused (409: the cache lagged) and retried in this process does not record it again;
    // an event the API server could not take holds the DELETE (the queue retries both)
    boolean recorded =
        events.recordOnce(
            machine,
            "Normal",
            Names.EVICTED_REASON,
            // "Evicting": recorded before the DELETE, which may still be refused (EvictionFailed
            // then; fresh eyes, session 42: "Evicted" stood beside a Machine still there)
            "Evicting from MachinePool "
                + poolName
                + (outcome.untolerated().size() == 1 ? ": taint " : ": taints ")
                + taints
                + (outcome.untolerated().size() == 1
                    ? (outcome.expired()
                        ? " was tolerated for its tolerationSeconds only, which have passed"
                        : " is not tolerated")
                    : (outcome.expired()
                        ? " were tolerated for their tolerationSeconds only, which have passed"
                        : " are not tolerated")));
    if (!recorded) {
      throw new dev.ironcore.maintenance.controller.runtime.HeldForApiServer(
          "eviction of Machine "
              + key
              + " from MachinePool "
              + poolName
              + " held: its Evicted event could not be written; retrying both");
    }
    String decidedOn = machine.getMetadata().getResourceVersion();
    EvictionDelete.Outcome deleted;
    try {
      deleted =
          EvictionDelete.ifUnchanged(
              client, cache.machineClass(), Keys.namespace(key), Keys.name(key), decidedOn);
    } catch (KubernetesClientException e) {
      // refused (RBAC, another admission webhook or policy) or the API server failed: say so on
      // the Machine and name the pool in the log, then the queue retries
      String what = "eviction from MachinePool " + poolName + " failed";
      metrics.evictionFailed();
      events.recordInBackground(
          machine,
          "Warning",
          Names.EVICTION_FAILED_REASON,
          what + ": " + ApiFailure.describe(e) + "; retrying");
      // the loop's line: the API server's answer, then this in parentheses (ApiFailure)
      throw new IllegalStateException(what, e);
    }
    switch (deleted) {
      case GONE:
        return Result.done();
      case CHANGED:
        // the cache lags (e.g. the Machine is already being deleted): decide again on the next read
        throw new IllegalStateException(
            "Machine "
                + key
                + " changed since resourceVersion "
                + decidedOn
                + " (409 Conflict): not evicted, deciding again");
      case DELETED:
        break;
    }
    metrics.evicted();
    String why = outcome.expired() ? " tolerated for its tolerationSeconds only" : " not tolerated";
    LOG.info("evicted machine {} from pool {}: taint {}{}", key, poolName, taints, why);
    return Result.done();
  }

  /**
   * Time until {@code deadline}, at most {@link #LONGEST_WAIT} (the resync checks again anyway).
   */
  static Duration delay(Instant now, Instant deadline) {
    Duration d = Duration.between(now, deadline);
    return d.isNegative() ? Duration.ZERO : d.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : d;
  }

  /** The longest single requeue delay: one day (a Duration beyond millis would overflow). */
  static final Duration LONGEST_WAIT = Duration.ofDays(1);
}

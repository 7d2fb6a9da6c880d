package dev.ironcore.maintenance.controller.orphan;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.controller.runtime.Keys;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import dev.ironcore.maintenance.process.DurationFlag;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases orphaned poollet finalizers ({@link OrphanDecision}), keyed by Machine: after the grace
 * period the pool's absence is confirmed with the API server, the finalizer is removed with a patch
 * guarded by a {@code test} operation (only while the Machine is still deleting and bound to that
 * pool), and a Warning event {@value #REASON} on the Machine says so.
 */
public final class OrphanedMachineReconciler implements Reconciler {
  /** Reason of the Warning event on a Machine whose poollet finalizer was released. */
  public static final String REASON = "OrphanedFinalizerReleased";

  private static final Logger LOG = LoggerFactory.getLogger(OrphanedMachineReconciler.class);

  private final KubeWriter writer;
  private final ClusterCache cache;
  private final EventRecorder events;
  private final Clock clock;
  private final Duration grace;
  private final Map<String, Instant> firstSeen = new ConcurrentHashMap<>();

  /**
   * @param grace how long a finalizer must stay orphaned before it is released
   */
  public OrphanedMachineReconciler(
      KubeWriter writer, ClusterCache cache, EventRecorder events, Clock clock, Duration grace) {
    this.writer = writer;
    this.cache = cache;
    this.events = events;
    this.clock = clock;
    this.grace = grace;
  }

  @Override
  public Result reconcile(String key) {
    Machine machine = cache.machine(key);
    if (machine == null) {
      firstSeen.remove(key);
      return Result.done();
    }
    String pool = machine.boundPoolName();
    Instant now = clock.instant();
    OrphanDecision.Outcome outcome =
        OrphanDecision.decide(machine, cache.pool(pool) != null, firstSeen.get(key), now, grace);
    if (outcome instanceof OrphanDecision.NotOrphaned) {
      firstSeen.remove(key);
      return Result.done();
    }
    if (outcome instanceof OrphanDecision.Wait wait) {
      firstSeen.putIfAbsent(key, now);
      return Result.requeueAfter(
          wait.delay(), "poollet finalizer orphaned (pool " + pool + " absent)");
    }
    if (writer.livePool(pool) != null) {
      firstSeen.remove(key); // the cache lags: the pool exists
      return Result.done();
    }
    boolean released =
        writer.patchMetadata(
            writer.machine(Keys.namespace(key), Keys.name(key)),
            live ->
                live.getMetadata().getDeletionTimestamp() != null
                    && Objects.equals(live.boundPoolName(), pool),
            e -> e.removeFinalizer(Names.POOLLET_FINALIZER));
    Instant seen = firstSeen.remove(key);
    if (released) {
      String message = releasedMessage(pool, seen == null ? now : seen, now, grace);
      LOG.warn("machine {}: {}", key, message);
      events.record(machine, "Warning", REASON, message);
    }
    return Result.done();
  }

  /**
   * The {@value #REASON} message: the time this process saw the Machine orphaned, which is the
   * grace period or more (fresh eyes, session 47: "waited 40s" after a wait of 2m51s, the grace
   * counted anew by each new leader).
   *
   * @param seen when this process first saw it orphaned
   */
  static String releasedMessage(String pool, Instant seen, Instant now, Duration grace) {
    return "Removed finalizer "
        + Names.POOLLET_FINALIZER
        + ": the Machine is deleting and its MachinePool "
        + pool
        + " does not exist, so no poollet can release it (seen so by this controller since "
        + seen.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
        + ", "
        + DurationFlag.format(
            Duration.between(seen, now).truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
        + "; --orphaned-machine-grace="
        + DurationFlag.format(grace)
        + ")";
  }
}

package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.compute.TimeAdded;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.api.compute.Tolerations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Whether a Machine must be evicted from its pool, and when (IronCore IEP-21 {@code shouldEvict},
 * plus Kubernetes-style delayed eviction with our v1alpha2 {@code tolerationSeconds}). A pure
 * function of the objects, the current time and when each taint was added.
 *
 * <p>Deleting, unbound Machines and Machines of missing pools are kept. Per NoExecute taint of the
 * pool:
 *
 * <ul>
 *   <li>no matching toleration: evict now;
 *   <li>a matching toleration without {@code tolerationSeconds}: tolerated for good;
 *   <li>only matching tolerations with {@code tolerationSeconds}: tolerated until the taint's added
 *       time plus the shortest of them (≤ 0: at once). The added time is {@code timeAdded}, else
 *       what {@code addedAt} says (the controller's first sighting).
 * </ul>
 *
 * The Machine is evicted when some taint's deadline has passed (at {@code now} or earlier);
 * otherwise, with deadlines pending, the outcome says to come back at the earliest one. Without
 * delayed eviction (API servers that serve only v1alpha1) {@code tolerationSeconds} is ignored: any
 * matching toleration tolerates for good. Deadlines saturate at {@link Instant#MAX} (no overflow
 * for {@code tolerationSeconds} up to 2^63-1). A Machine or pool that could not be decoded ({@link
 * dev.ironcore.maintenance.api.json.Salvageable}) is never evicted on: its fields are unknown.
 */
public final class EvictionDecision {
  private EvictionDecision() {}

  /**
   * Outcome of {@link #decide}.
   *
   * @param evict true: DELETE the Machine now
   * @param untolerated with {@code evict}: the taints that are not (or no longer) tolerated
   * @param expired with {@code evict}: true when every such taint was tolerated for a while and the
   *     time is up (false when one is not tolerated at all)
   * @param deadline without {@code evict}: when to decide again (the earliest pending deadline), or
   *     null when nothing is pending
   * @param reason without {@code evict}: why the Machine stays, for logs
   */
  public record Outcome(
      boolean evict, List<Taint> untolerated, boolean expired, Instant deadline, String reason) {
    static Outcome keep(String reason) {
      return new Outcome(false, List.of(), false, null, reason);
    }
  }

  /** As {@link #decide(Machine, MachinePool, Instant, Function, boolean)} without delays. */
  public static Outcome decide(Machine machine, MachinePool pool) {
    return decide(machine, pool, Instant.EPOCH, t -> Instant.EPOCH, false);
  }

  /**
   * @param machine the Machine (never null)
   * @param pool its bound pool, or null when the pool does not exist
   * @param now the current time (from the injected clock)
   * @param addedAt when a taint without a readable {@code timeAdded} was first seen
   * @param delayed whether {@code tolerationSeconds} delays eviction (v1alpha2 served)
   * @return evict now, or keep (with the next deadline when one is pending)
   */
  public static Outcome decide(
      Machine machine,
      MachinePool pool,
      Instant now,
      Function<Taint, Instant> addedAt,
      boolean delayed) {
    if (machine.getMetadata().getDeletionTimestamp() != null) {
      return Outcome.keep("already deleting");
    }
    if (machine.boundPoolName() == null) {
      return Outcome.keep("not bound to a pool");
    }
    if (pool == null) {
      return Outcome.keep("pool " + machine.boundPoolName() + " does not exist");
    }
    if (machine.decodeError() != null) {
      return Outcome.keep("its tolerations cannot be read: " + machine.decodeError());
    }
    if (pool.decodeError() != null) {
      return Outcome.keep("the pool's taints cannot be read: " + pool.decodeError());
    }
    List<Taint> taints = pool.getSpec() == null ? null : pool.getSpec().getTaints();
    List<Toleration> tolerations =
        machine.getSpec() == null ? null : machine.getSpec().getTolerations();
    List<Taint> untolerated = new ArrayList<>();
    List<Taint> expired = new ArrayList<>();
    Instant next = null;
    for (Taint taint : taints == null ? List.<Taint>of() : taints) {
      if (taint == null || !TaintEffect.NO_EXECUTE.equals(taint.getEffect())) {
        continue;
      }
      Long seconds = secondsTolerated(taint, tolerations, delayed);
      if (seconds == null) {
        untolerated.add(taint);
      } else if (seconds != FOREVER && seconds <= 0) {
        expired.add(taint); // at once, whenever the taint was added
      } else if (seconds != FOREVER) {
        Instant deadline = plus(addedAt(taint, addedAt), seconds);
        if (!deadline.isAfter(now)) {
          expired.add(taint);
        } else if (next == null || deadline.isBefore(next)) {
          next = deadline;
        }
      }
    }
    if (!untolerated.isEmpty() || !expired.isEmpty()) {
      List<Taint> all = new ArrayList<>(untolerated);
      all.addAll(expired);
      return new Outcome(true, all, untolerated.isEmpty(), null, null);
    }
    return next == null
        ? Outcome.keep("tolerates every NoExecute taint")
        : new Outcome(false, List.of(), false, next, "tolerationSeconds pending until " + next);
  }

  /** Marker: a matching toleration without seconds. */
  private static final long FOREVER = Tolerations.FOREVER;

  /**
   * @return null when no toleration matches, {@link #FOREVER} when the first matching one has no
   *     seconds (or delays are off), else its {@code tolerationSeconds} ({@link
   *     Tolerations#secondsTolerated})
   */
  private static Long secondsTolerated(Taint taint, List<Toleration> tolerations, boolean delayed) {
    Long seconds = Tolerations.secondsTolerated(taint, tolerations);
    if (seconds == null || delayed) {
      return seconds;
    }
    return FOREVER;
  }

  private static Instant addedAt(Taint taint, Function<Taint, Instant> firstSeen) {
    Instant parsed = TimeAdded.parse(taint.getTimeAdded());
    return parsed != null ? parsed : firstSeen.apply(taint);
  }

  /**
   * @return {@code from + seconds}, at least {@code from} (≤ 0 means at once), saturating at {@link
   *     Instant#MAX}
   */
  public static Instant plus(Instant from, long seconds) {
    if (seconds <= 0) {
      return from;
    }
    long room = Duration.between(from, Instant.MAX).getSeconds();
    return seconds >= room ? Instant.MAX : from.plusSeconds(seconds);
  }
}

package dev.ironcore.maintenance.controller.drain;

import java.util.Comparator;
import java.util.List;

/**
 * The {@code --max-concurrent-drains} budget as a pure function over the deleting CAPI Machines
 * (domain reference §5 step 2): the drains in progress are those whose pool carries a maintenance
 * taint; waiting drains start in order of {@code deletionTimestamp}, then {@code namespace/name},
 * as slots free up. A slot and a place in the queue are a pool's: two deleting CAPI Machines that
 * name one pool (as a replaced Machine may, for a while) are one drain, with one position (fresh
 * eyes: each wrote its own position to the pool's condition, and the two rewrote it 50 to 70 times
 * a second while they waited). A drain whose pool already carries its {@code NoExecute} maintenance
 * taint (e.g. added before a crash) keeps its slot; one whose pool carried it before the deletion
 * ({@link DrainDecision#taintedBeforeDrain}) neither holds nor waits for one. Because every worker
 * orders the same queue the same way, two passes that both see a free slot admit the same (first)
 * drain, never two.
 */
public final class DrainBudget {
  private DrainBudget() {}

  /**
   * @param admitted whether this drain may taint its pool now
   * @param position 1-based place among the waiting drains (1 = next)
   * @param inProgress pools holding a slot while they drain, sorted; one whose drain is stuck (past
   *     {@code --drain-timeout}) followed by {@code " (DrainStuck)"}, so the queue says what it
   *     waits for
   * @param released pools holding a slot after their drain released its pre-drain hook, while
   *     Cluster API still drains and deletes the node, sorted, each as {@code pool-6 (drained, CAPI
   *     Machine ns/node-6 still being deleted, held by pre-drain.delete.hook...)}: the queue names
   *     what it waits for there (fresh eyes, session 47: "draining pool-6" for a pool drained long
   *     ago whose CAPI Machine another team's pre-drain hook held)
   */
  public record Verdict(
      boolean admitted, int position, List<String> inProgress, List<String> released) {

    /** A verdict without drained pools holding a slot. */
    public Verdict(boolean admitted, int position, List<String> inProgress) {
      this(admitted, position, inProgress, List.of());
    }

    /** Pools holding a slot, drained or not. */
    public int slotsInUse() {
      return inProgress.size() + released.size();
    }
  }

  /** First deleted, first served; the name breaks ties. */
  static final Comparator<DrainSlot> ORDER =
      Comparator.comparing(DrainSlot::deletedAt).thenComparing(DrainSlot::key);

  /**
   * @param key the CAPI Machine asking for a slot
   * @param fleet every deleting, selected CAPI Machine with our finalizer and a nodeRef
   * @param max {@code --max-concurrent-drains}; 0 admits everything
   */
  public static Verdict check(String key, List<DrainSlot> fleet, int max) {
    java.util.Set<String> stuck =
        fleet.stream()
            .filter(d -> d.inProgress() && d.stuck())
            .map(DrainSlot::pool)
            .collect(java.util.stream.Collectors.toSet());
    // a pool is draining while any of its drains holds the hook; drained once all released it
    java.util.Set<String> draining =
        fleet.stream()
            .filter(d -> d.inProgress() && d.hookHeld())
            .map(DrainSlot::pool)
            .collect(java.util.stream.Collectors.toSet());
    List<String> inProgress =
        draining.stream()
            .sorted()
            .map(p -> stuck.contains(p) ? p + " (" + MaintenanceCondition.STUCK_REASON + ")" : p)
            .toList();
    List<String> released =
        fleet.stream()
            .filter(d -> d.inProgress() && !draining.contains(d.pool()))
            .sorted(Comparator.comparing(DrainSlot::pool).thenComparing(ORDER))
            .collect(
                java.util.stream.Collectors.toMap(
                    DrainSlot::pool,
                    DrainBudget::released,
                    (first, second) -> first,
                    java.util.TreeMap::new))
            .values()
            .stream()
            .toList();
    // in progress, or not queued at all (a pool tainted before the deletion, a held drain)
    boolean noWait = fleet.stream().anyMatch(d -> d.key().equals(key) && !d.waiting());
    if (max <= 0 || noWait) {
      return new Verdict(true, 1, inProgress, released);
    }
    List<String> waitingPools = waitingPools(fleet);
    String pool =
        fleet.stream()
            .filter(d -> d.key().equals(key))
            .map(DrainSlot::pool)
            .findFirst()
            .orElse(null);
    int index = pool == null ? -1 : waitingPools.indexOf(pool);
    if (index < 0) {
      index = waitingPools.size();
    }
    Verdict counted = new Verdict(false, index + 1, inProgress, released);
    return new Verdict(index < max - counted.slotsInUse(), index + 1, inProgress, released);
  }

  /** A drained pool's slot, with what Cluster API still waits for. */
  private static String released(DrainSlot d) {
    return d.pool()
        + " (drained, CAPI Machine "
        + d.key()
        + " still being deleted"
        + (d.otherHooks().isEmpty() ? "" : ", held by " + String.join(", ", d.otherHooks()))
        + ")";
  }

  /** The pools of the waiting drains, each once, in the order of its first drain. */
  private static List<String> waitingPools(List<DrainSlot> fleet) {
    return fleet.stream()
        .filter(DrainSlot::waiting)
        .sorted(ORDER)
        .map(DrainSlot::pool)
        .distinct()
        .toList();
  }

  /** Number of pools whose drain waits for a slot (for the queued gauge). */
  public static long queued(List<DrainSlot> fleet, int max) {
    if (max <= 0) {
      return 0;
    }
    long inProgress =
        fleet.stream().filter(DrainSlot::inProgress).map(DrainSlot::pool).distinct().count();
    long waiting = waitingPools(fleet).size();
    return Math.max(0, waiting - Math.max(0, max - inProgress));
  }
}

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
   * @param inProgress pools holding a slot, sorted; one whose drain is stuck (past {@code
   *     --drain-timeout}) followed by {@code " (DrainStuck)"}, so the queue says what it waits for
   */
  public record Verdict(boolean admitted, int position, List<String> inProgress) {}

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
    List<String> inProgress =
        fleet.stream()
            .filter(DrainSlot::inProgress)
            .map(DrainSlot::pool)
            .distinct()
            .sorted()
            .map(p -> stuck.contains(p) ? p + " (" + MaintenanceCondition.STUCK_REASON + ")" : p)
            .toList();
    // in progress, or not queued at all (a pool tainted before the deletion, a held drain)
    boolean noWait = fleet.stream().anyMatch(d -> d.key().equals(key) && !d.waiting());
    if (max <= 0 || noWait) {
      return new Verdict(true, 1, inProgress);
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
    int free = max - inProgress.size();
    return new Verdict(index < free, index + 1, inProgress);
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

package dev.ironcore.maintenance.controller.drain;

import java.time.Instant;

/**
 * One deleting CAPI Machine as the drain budget sees it (derived from the cluster on every pass, so
 * the budget survives restarts and leader changes).
 *
 * @param key the CAPI Machine's {@code namespace/name}
 * @param deletedAt its {@code deletionTimestamp}
 * @param pool its {@code status.nodeRef.name}
 * @param inProgress the pool exists, is not being deleted and carries the {@code NoExecute}
 *     maintenance taint, not one older than the deletion ({@link
 *     DrainDecision#taintedBeforeDrain}): this drain holds one of the {@code
 *     --max-concurrent-drains} slots
 * @param waiting the pool exists without the {@code NoExecute} maintenance taint and our pre-drain
 *     hook is still on the Machine: this drain needs a slot to start (a pool tainted before the
 *     deletion is neither in progress nor waiting: that taint evicts whatever the drain does)
 * @param held another CAPI Machine, not being deleted, names the same pool ({@link
 *     DrainStep.SharedPool}): the drain holds its hook without a slot, tainted or not, so it is
 *     neither in progress nor waiting
 * @param hookHeld our pre-drain hook is still on the CAPI Machine: the drain is unfinished,
 *     whatever the pool's taints (a drain whose hook is released stays in progress, for the budget,
 *     until its pool is deleted, while Cluster API drains and deletes the node)
 * @param stuck its pool's condition {@code Maintenance} says {@code DrainStuck} (held past {@code
 *     --drain-timeout}): the queue behind it says so
 * @param otherHooks the CAPI Machine's lifecycle hooks other than ours (annotation keys {@code
 *     pre-drain.delete.hook.machine.cluster.x-k8s.io/*} and {@code
 *     pre-terminate.delete.hook.machine.cluster.x-k8s.io/*}), sorted: what keeps Cluster API from
 *     deleting the node once our hook is released, named in the queue behind it
 */
public record DrainSlot(
    String key,
    Instant deletedAt,
    String pool,
    boolean inProgress,
    boolean waiting,
    boolean held,
    boolean hookHeld,
    boolean stuck,
    java.util.List<String> otherHooks) {

  public DrainSlot {
    otherHooks = java.util.List.copyOf(otherHooks);
  }

  /** A slot whose drain is not held by a shared pool and still holds its hook. */
  public DrainSlot(
      String key, Instant deletedAt, String pool, boolean inProgress, boolean waiting) {
    this(key, deletedAt, pool, inProgress, waiting, false, true, false);
  }

  /** A slot on a CAPI Machine without lifecycle hooks of others. */
  public DrainSlot(
      String key,
      Instant deletedAt,
      String pool,
      boolean inProgress,
      boolean waiting,
      boolean held,
      boolean hookHeld,
      boolean stuck) {
    this(key, deletedAt, pool, inProgress, waiting, held, hookHeld, stuck, java.util.List.of());
  }
}

package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.compute.Taint;
import java.util.List;

/**
 * The one step {@link DrainDecision} picks for a CAPI Machine in one pass (pool-lifecycle order:
 * finalizer and hook, then — once deleting — taints, hold, release hook, wait for CAPI, delete the
 * pool, drop our finalizer last). Every step is derived from observed state only, so repeating a
 * pass after a crash at any point picks the same or the next step.
 */
public sealed interface DrainStep {

  /** Alive Machine lacking our finalizer and/or pre-drain hook: add what is missing. */
  record EnsureFinalizerAndHook(boolean addFinalizer, boolean addHook) implements DrainStep {}

  /**
   * Remove our hook and finalizer without draining: a deleting Machine with no {@code
   * status.nodeRef} (no pool to drain), or a Machine {@code --capi-machine-selector} no longer
   * selects (we stop managing it).
   */
  record Release(String reason) implements DrainStep {}

  /**
   * Wait before tainting: {@code --max-concurrent-drains} other pools are draining.
   *
   * @param position 1-based place among the waiting drains
   * @param inProgress the pools holding a slot
   */
  record Queue(String pool, int position, List<String> inProgress) implements DrainStep {}

  /**
   * Keep the hook and taint nothing: the pool is also the {@code status.nodeRef} of these other
   * CAPI Machines ({@code namespace/name}), which are not being deleted, so draining it would evict
   * their Machines and delete their node. Held until no live CAPI Machine names the pool.
   */
  record SharedPool(String pool, List<String> liveCapiMachines) implements DrainStep {}

  /** Add the maintenance taints the pool lacks (matched by key and effect). */
  record AddTaints(String pool, List<Taint> missing) implements DrainStep {}

  /**
   * Keep the hook: these bound Machines ({@code namespace/name}) do not tolerate the NoExecute
   * taint yet.
   */
  record Hold(String pool, List<String> blockingMachines) implements DrainStep {}

  /**
   * The pool is drained (or gone): remove the pre-drain hook so CAPI drains and deletes the node.
   */
  record RemoveHook(String pool, boolean poolMissing) implements DrainStep {}

  /** Hook gone; CAPI's own finalizer is still there: wait for CAPI to finish with the node. */
  record WaitForCapi(String pool) implements DrainStep {}

  /**
   * CAPI is done with the node: delete the (empty) pool.
   *
   * @param pool the pool's name
   * @param uid the uid of the pool the step was decided on: only that object is deleted (a pool
   *     deleted by hand and re-created meanwhile is another object, which a cache that lags still
   *     shows as the drained one); null: any (an object without one)
   */
  record DeletePool(String pool, String uid) implements DrainStep {
    DeletePool(String pool) {
      this(pool, null);
    }
  }

  /**
   * CAPI is done with the node, but the pool is not this drain's to delete, so it is kept and our
   * finalizer removed: it was created after the CAPI Machine's deletion and carries no maintenance
   * taint (deleted by hand and re-created, e.g. by a poollet registering again), or it is also the
   * {@code status.nodeRef} of other CAPI Machines that are not being deleted ({@code
   * liveCapiMachines}, {@code namespace/name}; empty for a re-created pool).
   */
  record SparePool(String pool, List<String> liveCapiMachines) implements DrainStep {
    /** A re-created pool. */
    public SparePool(String pool) {
      this(pool, List.of());
    }
  }

  /** The pool is gone or being deleted: remove our finalizer, which releases the CAPI Machine. */
  record RemoveFinalizer(String pool) implements DrainStep {}

  /** Nothing to do: alive and marked, or deleting without our finalizer. */
  record Nothing() implements DrainStep {}
}

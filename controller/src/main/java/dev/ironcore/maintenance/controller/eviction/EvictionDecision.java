package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.Tolerations;
import java.util.List;

/**
 * Whether a Machine must be evicted from its pool (IronCore IEP-21 {@code shouldEvict}): a bound,
 * not-deleting Machine on an existing pool is evicted when some NoExecute taint of the pool is not
 * tolerated by any of its tolerations. A Machine or pool that could not be decoded ({@link
 * dev.ironcore.maintenance.api.json.Salvageable}) is never evicted on: its fields are unknown.
 */
public final class EvictionDecision {
  private EvictionDecision() {}

  /**
   * Outcome of {@link #decide}: {@code evict} with the untolerated taints, or keep with a reason.
   */
  public record Outcome(boolean evict, List<Taint> untolerated, String reason) {
    static Outcome keep(String reason) {
      return new Outcome(false, List.of(), reason);
    }
  }

  /**
   * @param machine the Machine (never null)
   * @param pool its bound pool, or null when the pool does not exist
   */
  public static Outcome decide(Machine machine, MachinePool pool) {
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
    List<Taint> untolerated =
        Tolerations.untoleratedNoExecute(
            pool.getSpec() == null ? null : pool.getSpec().getTaints(),
            machine.getSpec() == null ? null : machine.getSpec().getTolerations());
    return untolerated.isEmpty()
        ? Outcome.keep("tolerates every NoExecute taint")
        : new Outcome(true, untolerated, null);
  }
}

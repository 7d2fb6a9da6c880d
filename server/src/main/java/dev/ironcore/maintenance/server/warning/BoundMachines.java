package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import java.util.List;
import java.util.Optional;

/**
 * What the admission warnings read from the cluster, as far as this process can tell ({@link
 * LiveBoundMachines}: from the API server, bounded in time): the IronCore Machines bound to a pool
 * (for a MachinePool write that adds a {@code NoExecute} taint) and a pool itself (for a Machine
 * bound to it).
 */
@FunctionalInterface
public interface BoundMachines {
  /** Knows nothing: no warnings. */
  BoundMachines NONE = pool -> Optional.empty();

  /**
   * @param pool a MachinePool name
   * @return the Machines whose {@code spec.machinePoolRef.name} is {@code pool} (deleting ones
   *     included), or empty when not known (no API access, no answer in time)
   */
  Optional<List<Machine>> boundTo(String pool);

  /**
   * @param name a MachinePool name
   * @return the pool, or empty when not known (none of that name, no API access, no answer in
   *     time); empty unless implemented
   */
  default Optional<MachinePool> pool(String name) {
    return Optional.empty();
  }

  /**
   * Whether the eviction honours {@code tolerationSeconds} (IronCore's v1alpha2, our CRDs): false
   * where the API server serves v1alpha1 only, whose eviction counts any matching toleration as
   * tolerated for good.
   */
  default boolean tolerationSecondsCount() {
    return true;
  }

  /**
   * Asks whatever {@code current} gives at each call (e.g. {@link #NONE} until the API access has
   * started).
   */
  static BoundMachines delegatingTo(java.util.function.Supplier<BoundMachines> current) {
    return new BoundMachines() {
      @Override
      public Optional<List<Machine>> boundTo(String pool) {
        return current.get().boundTo(pool);
      }

      @Override
      public Optional<MachinePool> pool(String name) {
        return current.get().pool(name);
      }

      @Override
      public boolean tolerationSecondsCount() {
        return current.get().tolerationSecondsCount();
      }
    };
  }
}

package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.Machine;
import java.util.List;
import java.util.Optional;

/**
 * The IronCore Machines bound to a pool, as far as this process knows them, read without blocking
 * (an in-memory cache).
 */
@FunctionalInterface
public interface BoundMachines {
  /** Knows nothing: no warnings. */
  BoundMachines NONE = pool -> Optional.empty();

  /**
   * @param pool a MachinePool name
   * @return the Machines whose {@code spec.machinePoolRef.name} is {@code pool} (deleting ones
   *     included), or empty when not known (cache not synced, no API access)
   */
  Optional<List<Machine>> boundTo(String pool);
}

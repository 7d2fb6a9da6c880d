package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.Machine;
import java.util.List;
import java.util.Optional;

/**
 * The IronCore Machines bound to a pool, as far as this process can tell ({@link
 * LiveBoundMachines}: read from the API server, bounded in time).
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
}

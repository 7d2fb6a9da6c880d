package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import java.util.List;

/**
 * What one drain pass observed.
 *
 * @param capiMachine the CAPI Machine (never null)
 * @param selected whether {@code --capi-machine-selector} selects it (its labels now)
 * @param pool the MachinePool named by {@code status.nodeRef.name}, or null when it does not exist
 *     (or the Machine has no nodeRef)
 * @param boundMachines IronCore Machines whose {@code spec.machinePoolRef.name} is that pool,
 *     including Machines that are being deleted (also when the pool does not exist)
 * @param fleet every deleting CAPI Machine the drain budget counts (see {@link DrainBudget}); may
 *     be empty when no budget is set
 */
public record DrainInput(
    CapiMachine capiMachine,
    boolean selected,
    MachinePool pool,
    List<Machine> boundMachines,
    List<DrainSlot> fleet) {

  /** Without a fleet (no drain budget to check). */
  public DrainInput(
      CapiMachine capiMachine, boolean selected, MachinePool pool, List<Machine> boundMachines) {
    this(capiMachine, selected, pool, boundMachines, List.of());
  }
}

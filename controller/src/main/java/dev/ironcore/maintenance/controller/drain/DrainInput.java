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
 * @param liveOnSamePool {@code namespace/name} of the other CAPI Machines, selected or not, whose
 *     {@code status.nodeRef.name} also names that pool and which are not being deleted (CAPI sets a
 *     nodeRef once, so only a nodeRef written by hand shares a pool); sorted, may be empty
 */
public record DrainInput(
    CapiMachine capiMachine,
    boolean selected,
    MachinePool pool,
    List<Machine> boundMachines,
    List<DrainSlot> fleet,
    List<String> liveOnSamePool) {

  /** Without a fleet (no drain budget to check) and no other CAPI Machine on the pool. */
  public DrainInput(
      CapiMachine capiMachine, boolean selected, MachinePool pool, List<Machine> boundMachines) {
    this(capiMachine, selected, pool, boundMachines, List.of(), List.of());
  }
}

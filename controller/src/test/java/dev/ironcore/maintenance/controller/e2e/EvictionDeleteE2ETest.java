package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.controller.eviction.EvictionDelete;
import dev.ironcore.maintenance.controller.eviction.EvictionDelete.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The eviction's conditional DELETE against the real API server: a Machine read before it changed
 * (as from a cache lagging after an API server restart) is not deleted again.
 */
class EvictionDeleteE2ETest {
  private final ControllerWorld world = new ControllerWorld();

  @Test
  void onlyTheVersionDecidedOnIsDeletedAndOnlyOnce() {
    String pool = world.poolName("evict-once");
    world.createPool(pool, List.of());
    String read = world.createMachine("vm-1", pool).getMetadata().getResourceVersion();

    assertThat(
            EvictionDelete.ifUnchanged(
                world.ironcore, MachineV1alpha2.class, world.ns, "vm-1", read))
        .isEqualTo(Outcome.DELETED);
    String deleting = world.machine("vm-1").getMetadata().getResourceVersion();
    assertThat(world.machine("vm-1").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(
            EvictionDelete.ifUnchanged(
                world.ironcore, MachineV1alpha2.class, world.ns, "vm-1", read))
        .as("the same stale read again: already being deleted")
        .isEqualTo(Outcome.CHANGED);
    assertThat(world.machine("vm-1").getMetadata().getResourceVersion()).isEqualTo(deleting);

    world.poolletReleases("vm-1");
    assertThat(
            EvictionDelete.ifUnchanged(
                world.ironcore, MachineV1alpha2.class, world.ns, "vm-1", deleting))
        .isEqualTo(Outcome.GONE);
  }

  @Test
  void aMachineThatChangedSinceItWasReadIsNotDeleted() {
    String pool = world.poolName("evict-changed");
    world.createPool(pool, List.of());
    String read = world.createMachine("vm-2", pool).getMetadata().getResourceVersion();
    world
        .ironcore
        .resources(Machine.class)
        .inNamespace(world.ns)
        .withName("vm-2")
        .edit(
            m -> {
              m.getMetadata().setLabels(Map.of("changed", "yes"));
              return m;
            });

    assertThat(
            EvictionDelete.ifUnchanged(
                world.ironcore, MachineV1alpha2.class, world.ns, "vm-2", read))
        .isEqualTo(Outcome.CHANGED);
    assertThat(world.machine("vm-2").getMetadata().getDeletionTimestamp()).isNull();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.controller.drain.LiveBoundMachines;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The drain's live check reads a pool's Machines with the field selector {@code
 * spec.machinePoolRef.name} (a selectable field of both versions of our CRD, as on IronCore's API
 * server): only that pool's Machines, in every namespace. The paged fallback: V1alpha1OnlyE2ETest.
 */
class LiveBoundMachinesE2ETest {
  @Test
  void readsOnePoolsMachinesWithTheFieldSelector() {
    ControllerWorld world = new ControllerWorld();
    String pool = world.poolName("live");
    String other = world.poolName("other");
    world.createPool(pool, List.of());
    world.createPool(other, List.of());
    world.createMachine("vm-a", pool);
    world.createMachine("vm-b", pool);
    world.createMachine("vm-other", other);
    world.createMachine("vm-unbound", null);

    LiveBoundMachines live = new LiveBoundMachines(world.ironcore, MachineV1alpha2.class);
    assertThat(live.boundTo(pool))
        .extracting(m -> m.getMetadata().getName())
        .containsExactlyInAnyOrder("vm-a", "vm-b");
    assertThat(live.boundTo(other))
        .extracting(m -> m.getMetadata().getName())
        .containsExactly("vm-other");
    assertThat(live.boundTo(world.poolName("none"))).isEmpty();
    assertThat(live.usesFieldSelector()).isTrue();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.controller.informers.SupervisedInformer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An informer whose watch dies in the middle of a drain is noticed (not ready) and replaced; the
 * drain in progress completes, including events that happened while it was down.
 */
class InformerRecoveryE2ETest extends InProcessController {

  private SupervisedInformer<?> informer(String resource) {
    return controller.cache().informers().stream()
        .filter(i -> i.resource().equals(resource))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aKilledMachineInformerMakesTheControllerUnreadyUntilReplacedAndTheDrainCompletes() {
    String pool = world.poolName("heal");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node", pool, Map.of());
    eventually().until(() -> controller.isReady() && hasHook(world.capiMachine("node")));

    world.deleteCapiMachine("node");
    eventually().until(() -> world.machine("vm-1").getMetadata().getDeletionTimestamp() != null);

    SupervisedInformer<?> machines = informer("machines");
    machines.kill();
    assertThat(controller.isReady()).isFalse();
    // the poollet releases vm-1 while no Machine informer runs: its deletion must not be lost
    world.poolletReleases("vm-1");
    eventually().until(controller::isReady);
    assertThat(machines.restarts()).isGreaterThanOrEqualTo(1);
    assertThat(controller.isHealthy()).isTrue();

    eventually().until(() -> !hasHook(world.capiMachine("node")));
    assertThat(world.pool(pool)).isNotNull();
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
  }
}

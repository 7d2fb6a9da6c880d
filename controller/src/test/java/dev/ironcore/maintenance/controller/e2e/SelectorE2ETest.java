package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.controller.ControllerOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --capi-machine-selector=role=ironcore}: only selected CAPI Machines are managed, and one
 * that stops matching is let go.
 */
class SelectorE2ETest extends InProcessController {

  @Override
  protected ControllerOptions options() {
    return ControllerOptions.defaults()
        .withResyncPeriod(Duration.ofSeconds(5))
        .withCapiMachineSelector("role=ironcore");
  }

  private void relabel(String name, String role) {
    world
        .cp
        .kubectl(
            "label",
            "machines.cluster.x-k8s.io",
            "-n",
            world.ns,
            name,
            "role=" + role,
            "--overwrite")
        .orThrow();
  }

  private boolean released(String name) {
    var m = world.capiMachine(name);
    return m == null
        || (!hasHook(m) && !m.getMetadata().getFinalizers().contains(Names.CLEANUP_FINALIZER));
  }

  @Test
  void onlySelectedMachinesAreMarkedAndAMachineThatStopsMatchingIsReleased() {
    world.createCapiMachine("selected", null, Map.of("role", "ironcore"));
    world.createCapiMachine("other", null, Map.of("role", "db"));
    eventually().until(() -> hasHook(world.capiMachine("selected")));
    assertThat(hasHook(world.capiMachine("other"))).isFalse();

    relabel("selected", "other");
    eventually().until(() -> released("selected"));
    assertThat(world.capiMachine("selected").getMetadata().getFinalizers())
        .containsExactly(Names.CAPI_MACHINE_FINALIZER);
  }

  @Test
  void aDeletingMachineThatStopsMatchingIsNotStuck() {
    String pool = world.poolName("unselected");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createCapiMachine("node", pool, Map.of("role", "ironcore"));
    eventually().until(() -> hasHook(world.capiMachine("node")));
    relabel("node", "other");
    world.deleteCapiMachine("node");
    eventually().until(() -> released("node"));
    world.capiFinishes("node");
    eventually().until(() -> world.capiMachine("node") == null);
  }
}

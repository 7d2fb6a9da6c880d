package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.orphan.OrphanedMachineReconciler;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A deleting Machine bound to a pool that does not exist loses the poollet finalizer after the
 * grace.
 */
class OrphanedMachineE2ETest extends InProcessController {

  @Override
  protected ControllerApp configure(ControllerApp app) {
    return app.withOrphanedMachineGrace(Duration.ofSeconds(3));
  }

  private void delete(String name) {
    world.client.resources(Machine.class).inNamespace(world.ns).withName(name).delete();
  }

  private List<Event> warnings() {
    return world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
        .filter(e -> OrphanedMachineReconciler.REASON.equals(e.getReason()))
        .toList();
  }

  @Test
  void theFinalizerNoPoolletCanRemoveIsReleasedWithAWarningAndOthersAreKept() {
    String live = world.poolName("live");
    world.createPool(live, List.of());
    world.createMachine("vm-orphan", world.poolName("never-existed"));
    world.createMachine("vm-kept", live);
    delete("vm-orphan");
    delete("vm-kept");

    eventually().until(() -> world.machine("vm-orphan") == null && !warnings().isEmpty());
    List<Event> warnings = warnings();
    assertThat(warnings)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getInvolvedObject().getName()).isEqualTo("vm-orphan");
              assertThat(e.getMessage())
                  .contains(world.poolName("never-existed"))
                  .contains("(seen so by this controller since ")
                  .contains("; --orphaned-machine-grace=3s)");
            });
    // bound to an existing pool: only the poollet releases it
    assertThat(world.machine("vm-kept").getMetadata().getFinalizers())
        .contains(Names.POOLLET_FINALIZER);
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The eviction loop alone: taints added by {@code kubectl patch}, as a user would. */
class EvictionE2ETest extends InProcessController {

  private void kubectlAddTaint(String pool, String effect) {
    world
        .cp
        .kubectl(
            "patch",
            "machinepools.compute.ironcore.dev",
            pool,
            "--type=json",
            "-p",
            "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"maintenance.ironcore.dev\",\"effect\":\""
                + effect
                + "\"}]}]")
        .orThrow();
  }

  @Test
  void aNoExecuteTaintEvictsExactlyTheNonToleratingBoundMachines() {
    String pool = world.poolName("evict");
    String other = world.poolName("evict-other");
    world.createPool(pool, List.of());
    world.createPool(other, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-2", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createMachine("vm-other", other);
    world.createMachine("vm-unbound", null);

    kubectlAddTaint(pool, "NoExecute");

    eventually()
        .until(
            () ->
                world.machine("vm-1").getMetadata().getDeletionTimestamp() != null
                    && world.machine("vm-2").getMetadata().getDeletionTimestamp() != null);
    eventually()
        .untilAsserted(
            () ->
                assertThat(evictedEvents())
                    .extracting(e -> e.getInvolvedObject().getName())
                    .containsExactlyInAnyOrder("vm-1", "vm-2"));
    Event e = evictedEvents().get(0);
    assertThat(e.getType()).isEqualTo("Normal");
    assertThat(e.getMessage()).contains(pool).contains("maintenance.ironcore.dev:NoExecute");
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(world.machine("vm-other").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(world.machine("vm-unbound").getMetadata().getDeletionTimestamp()).isNull();
    var describe =
        world
            .cp
            .kubectl(
                "get", "events", "-n", world.ns, "--field-selector", "reason=Evicted", "-o", "name")
            .orThrow();
    assertThat(describe.stdout().lines().count()).isEqualTo(2);
  }

  @Test
  void aNoScheduleTaintEvictsNothing() throws Exception {
    String pool = world.poolName("noschedule");
    world.createPool(pool, List.of());
    String rv = world.createMachine("vm-1", pool).getMetadata().getResourceVersion();
    kubectlAddTaint(pool, "NoSchedule");
    // A NoExecute taint on a second pool is the marker that the loop has processed later events.
    String marker = world.poolName("marker");
    world.createPool(marker, List.of());
    world.createMachine("vm-marker", marker);
    kubectlAddTaint(marker, "NoExecute");
    eventually()
        .until(() -> world.machine("vm-marker").getMetadata().getDeletionTimestamp() != null);
    assertThat(world.machine("vm-1").getMetadata().getResourceVersion()).isEqualTo(rv);
    // the Evicted event is written right after the DELETE, so it may trail the deletionTimestamp
    eventually()
        .untilAsserted(
            () ->
                assertThat(evictedEvents())
                    .extracting(ev -> ev.getInvolvedObject().getName())
                    .containsExactly("vm-marker"));
  }

  private List<Event> evictedEvents() {
    return world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
        .filter(ev -> "Evicted".equals(ev.getReason()))
        .toList();
  }
}

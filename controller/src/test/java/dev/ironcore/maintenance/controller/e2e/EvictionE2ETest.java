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
    world.kubectlPatchPool(
        pool,
        "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"maintenance.ironcore.dev\",\"effect\":\""
            + effect
            + "\"}]}]");
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

  /**
   * An eviction the API server refuses (here a ValidatingAdmissionPolicy that freezes Machine
   * deletion in the namespace) is an {@code EvictionFailed} Warning on the Machine naming the pool
   * and the refusal; once the policy is gone the Machine is evicted.
   */
  @Test
  void aRefusedEvictionIsAWarningOnTheMachineNamingThePoolAndTheRefusal() {
    String pool = world.poolName("frozen");
    world.createPool(pool, List.of());
    world.createMachine("vm-f", pool);
    String name = "e2e-freeze-" + world.ns;
    String policy =
        """
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata:
              name: %1$s
            spec:
              failurePolicy: Fail
              matchConstraints:
                resourceRules:
                - apiGroups: ["compute.ironcore.dev"]
                  apiVersions: ["*"]
                  operations: ["DELETE"]
                  resources: ["machines"]
              validations:
              - expression: "false"
                message: Machine deletion is frozen
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicyBinding
            metadata:
              name: %1$s
            spec:
              policyName: %1$s
              validationActions: [Deny]
              matchResources:
                namespaceSelector:
                  matchLabels:
                    kubernetes.io/metadata.name: %2$s
            """
            .formatted(name, world.ns);
    try {
      world.createEnforced(
          policy,
          "delete",
          "machines.compute.ironcore.dev",
          "-n",
          world.ns,
          "vm-f",
          "--dry-run=server");
      kubectlAddTaint(pool, "NoExecute");
      eventually()
          .untilAsserted(
              () ->
                  assertThat(
                          world
                              .client
                              .v1()
                              .events()
                              .inNamespace(world.ns)
                              .list()
                              .getItems()
                              .stream()
                              .filter(e -> "EvictionFailed".equals(e.getReason()))
                              .toList())
                      .isNotEmpty()
                      .allSatisfy(
                          e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getInvolvedObject().getName()).isEqualTo("vm-f");
                            assertThat(e.getMessage())
                                .startsWith(
                                    "eviction from MachinePool " + pool + " failed: DELETE ")
                                .containsPattern(" answered 4[0-9][0-9]: ")
                                .contains("Machine deletion is frozen")
                                .endsWith("; retrying");
                          }));
      assertThat(world.machine("vm-f").getMetadata().getDeletionTimestamp()).isNull();
      // counted for alerting, and not as an eviction (fresh eyes, session 42: only the loop's
      // generic error counter showed it)
      assertThat(scrape())
          .containsPattern("(?m)^ironcore_maintenance_eviction_failures_total [1-9]")
          .contains("ironcore_maintenance_evictions_total 0.0");
      assertThat(
              world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
                  .filter(
                      e ->
                          "Evicted".equals(e.getReason())
                              && "vm-f".equals(e.getInvolvedObject().getName()))
                  .map(io.fabric8.kubernetes.api.model.Event::getMessage)
                  .toList())
          .as("recorded before the DELETE, which was refused")
          .isNotEmpty()
          .allSatisfy(m -> assertThat(m).startsWith("Evicting from MachinePool " + pool + ": "));
    } finally {
      world
          .cp
          .kubectl("delete", "validatingadmissionpolicybindings", name, "--ignore-not-found")
          .orThrow();
      world
          .cp
          .kubectl("delete", "validatingadmissionpolicies", name, "--ignore-not-found")
          .orThrow();
    }
    eventually().until(() -> world.machine("vm-f").getMetadata().getDeletionTimestamp() != null);
  }
}

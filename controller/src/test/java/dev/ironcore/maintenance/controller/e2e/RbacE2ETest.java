package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RBAC we ship is enough: the controller runs as its ServiceAccount (impersonated, with only
 * {@code manifests/rbac} granting anything) through a drain, an eviction event, a repeated event
 * and a health write.
 */
class RbacE2ETest {
  static final String SERVICE_ACCOUNT =
      "system:serviceaccount:ironcore-maintenance-system:ironcore-maintenance-controller";

  private ControllerWorld world;
  private KubernetesClient asController;
  private ControllerApp controller;

  @BeforeEach
  void start() throws Exception {
    world = new ControllerWorld();
    for (String overlay : List.of("namespaces", "rbac")) {
      world
          .cp
          .kubectl("apply", "--server-side", "-k", ManifestPaths.overlay(overlay).toString())
          .orThrow();
    }
    Config config = Config.fromKubeconfig(Files.readString(world.cp.kubeconfig()));
    config.setImpersonateUsername(SERVICE_ACCOUNT);
    asController = dev.ironcore.maintenance.api.json.JsonMappers.client(config);
    assertThat(
            world
                .cp
                .kubectl(
                    "auth",
                    "can-i",
                    "delete",
                    "machinepools.compute.ironcore.dev",
                    "--as",
                    SERVICE_ACCOUNT)
                .stdout()
                .trim())
        .isEqualTo("yes");
    assertThat(
            world
                .cp
                .kubectl("auth", "can-i", "delete", "namespaces", "--as", SERVICE_ACCOUNT)
                .stdout()
                .trim())
        .as("nothing beyond what the loops need")
        .isEqualTo("no");
    controller =
        new ControllerApp(
                asController, ControllerOptions.defaults().withGracePeriod(Duration.ofSeconds(2)))
            .start();
  }

  @AfterEach
  void stop() {
    if (controller != null) {
      controller.close();
    }
    if (asController != null) {
      asController.close();
    }
  }

  @Test
  void theControllerDrainsEvictsAndMarksHealthWithOnlyItsOwnRoles() {
    String pool = world.poolName("rbac");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node", pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node")));
    eventually()
        .until(
            () -> {
              MachinePool p = world.pool(pool);
              var ready =
                  Conditions.find(
                      p.getStatus() == null ? null : p.getStatus().getConditions(),
                      Names.READY_CONDITION);
              return ready != null && "Unknown".equals(ready.getStatus());
            });
    world.deleteCapiMachine("node");
    eventually().until(() -> world.machine("vm-1").getMetadata().getDeletionTimestamp() != null);
    eventually()
        .until(
            () ->
                world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
                    .map(Event::getReason)
                    .anyMatch(Names.EVICTED_REASON::equals));
    // a repeated Event is PATCHed (count grows) with the verbs granted (fresh eyes: fabric8 read
    // the Event first, which the role does not grant, and every repeat failed 403)
    eventually()
        .until(
            () ->
                world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
                    .anyMatch(
                        e ->
                            dev.ironcore.maintenance.controller.drain.DrainEvent.BLOCKED.equals(
                                    e.getReason())
                                && e.getCount() != null
                                && e.getCount() >= 2));
    world.poolletReleases("vm-1");
    eventually().until(() -> !hasHook(world.capiMachine("node")));
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
  }
}

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
import dev.ironcore.maintenance.controller.LeaderElection;
import dev.ironcore.maintenance.controller.Readiness;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
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

  /**
   * Leader election as the ServiceAccount: the start's dry-run create, leading (create, then
   * renewals) and the release on the way out, with the leader-election Role granting only get,
   * create, update and patch on Leases (fresh eyes, session 39: it also granted list and watch,
   * which nothing sends).
   */
  @Test
  void leaderElectionWorksWithOnlyItsOwnRole() throws Exception {
    String namespace = "ironcore-maintenance-system";
    String lease = "rbac-e2e-" + world.ns;
    LeaderElection.checkLeaseCanBeWritten(asController, namespace, lease);
    java.util.concurrent.CountDownLatch leading = new java.util.concurrent.CountDownLatch(1);
    var elector =
        LeaderElection.start(
            asController,
            namespace,
            lease,
            "rbac-candidate",
            new Readiness("rbac-candidate"),
            leading::countDown,
            () -> true,
            new dev.ironcore.maintenance.controller.LeadershipGate());
    try {
      assertThat(leading.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("leads").isTrue();
      Lease held = world.client.leases().inNamespace(namespace).withName(lease).get();
      assertThat(held.getSpec().getHolderIdentity()).isEqualTo("rbac-candidate");
      assertThat(held.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
      // renewed (an update) at least once: every 2 s
      java.time.ZonedDateTime acquired = held.getSpec().getRenewTime();
      eventually()
          .until(
              () ->
                  world
                      .client
                      .leases()
                      .inNamespace(namespace)
                      .withName(lease)
                      .get()
                      .getSpec()
                      .getRenewTime()
                      .isAfter(acquired.plusSeconds(1)));
    } finally {
      elector.cancel(true);
    }
    eventually()
        .untilAsserted(
            () -> {
              Lease released = world.client.leases().inNamespace(namespace).withName(lease).get();
              assertThat(released).isNotNull();
              // fabric8's release (an update): the Lease expires a second later
              assertThat(released.getSpec().getLeaseDurationSeconds())
                  .as("released: %s", released.getSpec())
                  .isEqualTo(1);
            });
    world.client.leases().inNamespace(namespace).withName(lease).delete();
  }
}

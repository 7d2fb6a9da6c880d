package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.taintStrings;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.LeaderElection;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The controller process with {@code --ironcore-kubeconfig}: the CAPI Machine lives in one API
 * server (the shared test cluster, the controller's own), the MachinePool and its Machines in
 * another (a second local kube-apiserver with only IronCore's CRDs). The drain runs across both;
 * the leader-election Lease stays in the controller's own cluster, the Evicted event goes to the
 * IronCore API.
 */
class TwoClustersE2ETest {
  private static final String SERVICE_ACCOUNT = RbacE2ETest.SERVICE_ACCOUNT;
  private static LocalControlPlane ironcoreCluster;

  private ControllerWorld world;
  private ControllerProcess controller;

  @BeforeAll
  static void startIronCoreApi() {
    ironcoreCluster =
        LocalControlPlane.start(
            SharedControlPlane.binDir(),
            Path.of("target", "controlplane", ProcessHandle.current().pid() + "-ironcore"));
    // the conversion webhook (v1alpha2 stored) served in this JVM, as for the shared cluster
    CrdsWithConversion.install(TestClusters.shared(), "crds", "capi-local");
    CrdsWithConversion.install(ironcoreCluster, "crds");
  }

  @AfterAll
  static void stopIronCoreApi() {
    if (ironcoreCluster != null) {
      ironcoreCluster.close();
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
  }

  @Test
  void aPoolInTheIronCoreApiIsDrainedForACapiMachineInAnotherApiServer() throws Exception {
    world = new ControllerWorld(ironcoreCluster);
    String pool = world.poolName("remote");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node", pool, Map.of());
    assertThat(world.client.resources(MachinePool.class).withName(pool).get())
        .as("no such pool in the CAPI cluster")
        .isNull();

    Path log =
        Files.createDirectories(Path.of("target", "two-clusters")).resolve(world.ns + ".log");
    controller =
        ControllerProcess.start(
            world.cp.kubeconfig(),
            log,
            "--ironcore-kubeconfig=" + ironcoreCluster.kubeconfig(),
            "--leader-elect",
            "--leader-election-namespace=" + world.ns,
            "--resync-period=5s");

    eventually()
        .until(
            () ->
                hasHook(world.capiMachine("node"))
                    && world
                        .capiMachine("node")
                        .getMetadata()
                        .getFinalizers()
                        .contains(Names.CLEANUP_FINALIZER));
    assertThat(
            world.client.leases().inNamespace(world.ns).withName(LeaderElection.LEASE_NAME).get())
        .as("leader election in the controller's own cluster")
        .isNotNull();
    assertThat(
            world.ironcore.leases().inNamespace(world.ns).withName(LeaderElection.LEASE_NAME).get())
        .isNull();

    world.deleteCapiMachine("node");
    eventually()
        .untilAsserted(
            () ->
                assertThat(taintStrings(world.pool(pool)))
                    .containsExactlyInAnyOrder(
                        "maintenance.ironcore.dev:NoSchedule",
                        "maintenance.ironcore.dev:NoExecute"));
    assertThat(managers(world.pool(pool)))
        .as("managedFields name the controller as the writer of the taints")
        .contains("ironcore-maintenance-controller");
    assertThat(managers(world.capiMachine("node")))
        .as("and of the pre-drain hook")
        .contains("ironcore-maintenance-controller");
    eventually().until(() -> world.machine("vm-1").getMetadata().getDeletionTimestamp() != null);
    eventually()
        .untilAsserted(
            () ->
                assertThat(
                        evictedEvents(
                            world.ironcore.v1().events().inNamespace(world.ns).list().getItems()))
                    .containsExactly("vm-1"));
    assertThat(hasHook(world.capiMachine("node"))).as("held while vm-1 shuts down").isTrue();

    world.poolletReleases("vm-1");
    eventually().until(() -> !hasHook(world.capiMachine("node")));
    assertThat(world.pool(pool).getMetadata().getDeletionTimestamp())
        .as("pool kept until CAPI is done with the node")
        .isNull();
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(evictedEvents(world.client.v1().events().inNamespace(world.ns).list().getItems()))
        .as("no Evicted event in the CAPI cluster")
        .isEmpty();
  }

  /** The managers of {@code object}'s managedFields entries. */
  private static List<String> managers(io.fabric8.kubernetes.api.model.HasMetadata object) {
    return object.getMetadata().getManagedFields().stream()
        .map(io.fabric8.kubernetes.api.model.ManagedFieldsEntry::getManager)
        .toList();
  }

  /**
   * The split RBAC is enough: the controller runs in-process as its ServiceAccount (impersonated)
   * in both API servers; the IronCore one has only {@code rbac/accounts} and {@code rbac/ironcore},
   * and CAPI Machines are granted in the other only by {@code rbac/capi}.
   */
  @Test
  void eachClusterNeedsOnlyItsOwnPartOfTheRbac() throws Exception {
    world = new ControllerWorld(ironcoreCluster);
    for (String overlay : List.of("namespaces", "rbac/accounts", "rbac/capi")) {
      world
          .cp
          .kubectl("apply", "--server-side", "-k", ManifestPaths.overlay(overlay).toString())
          .orThrow();
    }
    for (String overlay : List.of("namespaces", "rbac/accounts", "rbac/ironcore")) {
      ironcoreCluster
          .kubectl("apply", "--server-side", "-k", ManifestPaths.overlay(overlay).toString())
          .orThrow();
    }
    assertThat(
            ironcoreCluster
                .kubectl(
                    "auth", "can-i", "list", "machines.cluster.x-k8s.io", "--as", SERVICE_ACCOUNT)
                .stdout()
                .trim())
        .as("no CAPI rights in the IronCore API")
        .isEqualTo("no");
    String pool = world.poolName("rbac2");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createCapiMachine("node", pool, Map.of());

    try (KubernetesClient capi = impersonated(world.cp.kubeconfig());
        KubernetesClient ironcore = impersonated(ironcoreCluster.kubeconfig());
        ControllerApp app =
            new ControllerApp(
                    new Clusters(capi, ironcore),
                    ControllerOptions.defaults().withGracePeriod(Duration.ofSeconds(2)),
                    ControllerMetrics.inMemory())
                .start()) {
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
          .untilAsserted(
              () ->
                  assertThat(
                          evictedEvents(
                              world.ironcore.v1().events().inNamespace(world.ns).list().getItems()))
                      .containsExactly("vm-1"));
      world.poolletReleases("vm-1");
      eventually().until(() -> !hasHook(world.capiMachine("node")));
      world.capiFinishes("node");
      eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    }
  }

  /**
   * Fresh eyes (session 38): with the CAPI API server stopped (kill -STOP) mid-drain, a pass's
   * {@code DrainBlocked} Event on the CAPI Machine held the drain worker for up to the loops' 70 s
   * request timeout, and the pool's {@code Maintenance} condition in the IronCore API kept naming a
   * Machine that was gone. The pass's progress Event is now written off the worker: while the CAPI
   * API server answers nothing, the condition follows the IronCore side.
   */
  @Test
  void aFrozenCapiApiServerDoesNotHoldThePoolsConditionInTheIronCoreApi() throws Exception {
    world = new ControllerWorld(ironcoreCluster);
    String pool = world.poolName("frozen-capi");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-2", pool);
    world.createMachine("vm-3", pool);
    world.createCapiMachine("node", pool, Map.of());
    Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns));
    try (var proxy =
            dev.ironcore.maintenance.testkit.faults.FaultProxy.start(world.cp.kubeconfig(), dir);
        KubernetesClient capi =
            dev.ironcore.maintenance.api.json.JsonMappers.client(
                Config.fromKubeconfig(Files.readString(proxy.kubeconfig())));
        KubernetesClient ironcore =
            dev.ironcore.maintenance.api.json.JsonMappers.client(
                Config.fromKubeconfig(Files.readString(ironcoreCluster.kubeconfig())));
        ControllerApp app =
            new ControllerApp(
                    new Clusters(capi, ironcore),
                    ControllerOptions.defaults(),
                    ControllerMetrics.inMemory())
                .start()) {
      eventually().until(() -> hasHook(world.capiMachine("node")));
      world.deleteCapiMachine("node");
      eventually().until(() -> held("vm-1", "vm-2", "vm-3").equals(maintenanceMessage(pool)));
      proxy.freeze(Duration.ofSeconds(50));
      // the pass that follows writes its condition, then its DrainBlocked Event into the frozen
      // CAPI API server; the one after must not wait for that Event
      world.poolletReleases("vm-1");
      eventually().until(() -> held("vm-2", "vm-3").equals(maintenanceMessage(pool)));
      world.poolletReleases("vm-2");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> held("vm-3").equals(maintenanceMessage(pool)));
      assertThat(proxy.frozen()).as("the condition moved while the CAPI side was frozen").isTrue();
      proxy.freeze(Duration.ZERO);
      world.poolletReleases("vm-3");
      eventually().until(() -> !hasHook(world.capiMachine("node")));
    }
  }

  /**
   * The Maintenance message of a drain waiting for {@code machines}, evicted, held by the poollet.
   */
  private String held(String... machines) {
    return "waiting for "
        + (machines.length == 1 ? "1 Machine: " : machines.length + " Machines: ")
        + String.join(
            ", ",
            java.util.Arrays.stream(machines)
                .map(
                    m ->
                        world.ns
                            + "/"
                            + m
                            + " (deleting, held by finalizer machinepoollet.ironcore.dev/machine)")
                .toList());
  }

  private String maintenanceMessage(String pool) {
    MachinePool p = world.pool(pool);
    var c =
        p == null
            ? null
            : Conditions.find(
                p.getStatus() == null ? null : p.getStatus().getConditions(), "Maintenance");
    return c == null ? null : c.getMessage();
  }

  private static KubernetesClient impersonated(Path kubeconfig) throws java.io.IOException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
    config.setImpersonateUsername(SERVICE_ACCOUNT);
    return dev.ironcore.maintenance.api.json.JsonMappers.client(config);
  }

  private static List<String> evictedEvents(List<Event> events) {
    return events.stream()
        .filter(e -> "Evicted".equals(e.getReason()))
        .map(e -> e.getInvolvedObject().getName())
        .toList();
  }
}

package dev.ironcore.maintenance.devtools.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.devtools.sim.CapiStandIn;
import dev.ironcore.maintenance.devtools.sim.PoolletSimulator;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The {@code make run} demo against a real API server with the controller and both local simulators
 * in-process, beside the simulators (no webhook server here: the controller adds finalizer and hook
 * itself, and the demo writes the poollet finalizer the webhook would add); once with one API
 * server, once with CAPI Machines and the IronCore API in two (the pool is found only in the
 * second, so a controller looking for it in the first would release the hook without any drain
 * step).
 */
class DrainDemoTest {

  @Test
  void theDemoDrainsPoolAInOrderAndPrintsEveryStep() throws Exception {
    TestCluster cp = TestClusters.shared();
    install(cp, "crds", "capi-local");
    try (KubernetesClient controllerClient = cp.newClient();
        KubernetesClient simulatorClient = cp.newClient()) {
      assertDemoDrains(
          Clusters.single(controllerClient),
          Clusters.single(simulatorClient),
          Clusters.single(cp.client()));
    }
  }

  /**
   * {@code make run TWO_CLUSTERS=true}: CAPI Machine in one API server, pool and Machines in
   * another.
   */
  @Test
  void theDemoDrainsAcrossTwoApiServers() throws Exception {
    TestCluster capiCluster = TestClusters.shared();
    install(capiCluster, "capi-local");
    try (LocalControlPlane ironcoreCluster =
            LocalControlPlane.start(
                SharedControlPlane.binDir(),
                Path.of("target", "controlplane", ProcessHandle.current().pid() + "-ironcore"));
        KubernetesClient controllerCapi = capiCluster.newClient();
        KubernetesClient controllerIronCore = ironcoreCluster.newClient();
        KubernetesClient simulatorCapi = capiCluster.newClient();
        KubernetesClient simulatorIronCore = ironcoreCluster.newClient()) {
      install(ironcoreCluster, "crds");
      assertDemoDrains(
          new Clusters(controllerCapi, controllerIronCore),
          new Clusters(simulatorCapi, simulatorIronCore),
          new Clusters(capiCluster.client(), ironcoreCluster.client()));
    }
  }

  /** The overlays, with the CRDs' conversion webhook served in this JVM. */
  private static void install(TestCluster cp, String... overlays) {
    CrdsWithConversion.install(cp, overlays);
  }

  /** Runs the controller (in-process), both simulators and the demo; checks the demo's story. */
  private static void assertDemoDrains(
      Clusters controllerClusters, Clusters simulatorClusters, Clusters demoClusters)
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ControllerApp controller =
            new ControllerApp(
                    controllerClusters, ControllerOptions.defaults(), ControllerMetrics.inMemory())
                .start();
        PoolletSimulator poollet =
            new PoolletSimulator(new KubeWriter(simulatorClusters), Duration.ofMillis(500));
        CapiStandIn capi = new CapiStandIn(new KubeWriter(simulatorClusters))) {
      poollet.start();
      capi.start();
      boolean ok =
          new DrainDemo(demoClusters, new PrintStream(bytes, true, StandardCharsets.UTF_8), true)
              .run();
      String out = bytes.toString(StandardCharsets.UTF_8);
      assertThat(ok).as(out).isTrue();
      assertThat(out)
          .containsSubsequence(
              "deleted CAPI Machine demo/node-a",
              "pool pool-a tainted: maintenance.ironcore.dev:NoSchedule, maintenance.ironcore.dev:NoExecute",
              "pre-drain hook removed",
              "MachinePool pool-a deleted",
              "CAPI Machine demo/node-a gone",
              "vm-tolerant untouched");
      assertThat(out)
          .contains(
              "Machine vm-1 released by the poollet and gone",
              "Machine vm-2 released by the poollet and gone");
      assertThat(out).contains("Machine vm-1 evicted (deleting; the poollet shuts its VM down)");
      assertThat(out)
          .contains(
              "Machine vm-tolerant read in both versions: compute.ironcore.dev/v1alpha1 tolerations=",
              " | compute.ironcore.dev/v1alpha2 tolerations=");
      assertThat(out.indexOf("Machine vm-2 released"))
          .isLessThan(out.indexOf("pre-drain hook removed"));
      assertThat(out.indexOf("Machine vm-1 released"))
          .isLessThan(out.indexOf("pre-drain hook removed"));
    }
  }
}

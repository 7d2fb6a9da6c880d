package dev.ironcore.maintenance.devtools.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.devtools.sim.CapiStandIn;
import dev.ironcore.maintenance.devtools.sim.PoolletSimulator;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The {@code make run} demo against a real API server with the controller and both local simulators
 * in-process, beside the simulators (no webhook server here: the controller adds finalizer and hook
 * itself, and the demo writes the poollet finalizer the webhook would add).
 */
class DrainDemoTest {

  @Test
  void theDemoDrainsPoolAInOrderAndPrintsEveryStep() throws Exception {
    TestCluster cp = TestClusters.shared();
    CrdsWithConversion.install(cp);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (KubernetesClient simulatorClient = cp.newClient();
        ControllerApp controller =
            new ControllerApp(cp.newClient(), ControllerOptions.defaults()).start();
        PoolletSimulator poollet =
            new PoolletSimulator(new KubeWriter(simulatorClient), Duration.ofMillis(500));
        CapiStandIn capi = new CapiStandIn(new KubeWriter(simulatorClient))) {
      poollet.start();
      capi.start();
      boolean ok =
          new DrainDemo(cp.client(), new PrintStream(bytes, true, StandardCharsets.UTF_8), true)
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

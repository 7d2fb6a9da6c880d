package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.controller.ControllerMain;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code manifests/deploy} as the API server sees it (server-side dry run) and as an operator
 * expects it: two controller replicas spread over nodes, a PodDisruptionBudget per Deployment,
 * probes and the metrics Service on the ports the controller's flags bind.
 */
class DeployManifestsE2ETest {

  private static <T> T read(String file, Class<T> type) throws Exception {
    try (InputStream in = Files.newInputStream(deploy().resolve(file))) {
      return dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
          .unmarshal(in, type);
    }
  }

  private static Path deploy() {
    return ManifestPaths.overlay("deploy");
  }

  @Test
  void theApiServerAcceptsTheDeployManifests() {
    TestCluster cp = TestClusters.shared();
    cp.kubectl("apply", "--server-side", "-k", ManifestPaths.overlay("namespaces").toString())
        .orThrow();
    cp.kubectl("apply", "--dry-run=server", "-k", deploy().toString()).orThrow();
  }

  /**
   * Fresh eyes (session 43): after the README's {@code kubectl apply -k}, a server-side apply of
   * the same manifests (a GitOps tool) failed with two conflicts on the controller's {@code
   * fieldRef}s, which left out {@code apiVersion: v1} for the API server to fill in (the field is
   * atomic).
   */
  @Test
  void aServerSideApplyAfterTheClientSideOneHasNoConflicts() {
    TestCluster cp = TestClusters.shared();
    cp.kubectl("apply", "--server-side", "-k", ManifestPaths.overlay("namespaces").toString())
        .orThrow();
    cp.kubectl("apply", "-k", deploy().toString()).orThrow();
    try {
      cp.kubectl("apply", "--server-side", "--dry-run=server", "-k", deploy().toString()).orThrow();
    } finally {
      cp.kubectl("delete", "-k", deploy().toString(), "--wait=false", "--ignore-not-found");
    }
  }

  @Test
  void bothDeploymentsAreHighlyAvailable() throws Exception {
    List<PodDisruptionBudget> budgets = new java.util.ArrayList<>();
    for (String doc :
        Files.readString(deploy().resolve("pod_disruption_budgets.yaml")).split("\n---\n")) {
      budgets.add(
          dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
              .unmarshal(doc, PodDisruptionBudget.class));
    }
    for (String file : List.of("controller_deployment.yaml", "webhook_deployment.yaml")) {
      Deployment d = read(file, Deployment.class);
      Map<String, String> labels = d.getSpec().getSelector().getMatchLabels();
      assertThat(d.getSpec().getReplicas()).as(file).isEqualTo(2);
      assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
          .isZero();
      var pod = d.getSpec().getTemplate().getSpec();
      assertThat(pod.getTopologySpreadConstraints())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                assertThat(t.getLabelSelector().getMatchLabels()).isEqualTo(labels);
              });
      assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThanOrEqualTo(30L);
      assertThat(pod.getTerminationGracePeriodSeconds())
          .as("longer than the loops' shutdown, with time left to release the Lease")
          .isGreaterThan(
              dev.ironcore.maintenance.controller.runtime.Loop.SHUTDOWN_GRACE.toSeconds() + 5);
      assertThat(budgets)
          .as("a PodDisruptionBudget for " + file)
          .map(b -> b.getSpec().getSelector().getMatchLabels())
          .contains(labels);
    }
  }

  @Test
  void probesAndMetricsServiceUseThePortsTheFlagsBind() throws Exception {
    Container c =
        read("controller_deployment.yaml", Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    ControllerMain main = new ControllerMain();
    CommandLine.ParseResult parsed =
        new CommandLine(main).parseArgs(c.getArgs().toArray(String[]::new));
    int probePort = port(parsed.matchedOptionValue("--health-probe-bind-address", ":8081"));
    int metricsPort = port(parsed.matchedOptionValue("--metrics-bind-address", ":8080"));
    assertThat(probePort).isNotEqualTo(metricsPort);
    assertThat(containerPort(c, c.getReadinessProbe().getHttpGet().getPort().getStrVal()))
        .isEqualTo(probePort);
    assertThat(containerPort(c, c.getLivenessProbe().getHttpGet().getPort().getStrVal()))
        .isEqualTo(probePort);
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    Service metrics = read("controller_metrics_service.yaml", Service.class);
    assertThat(containerPort(c, metrics.getSpec().getPorts().get(0).getTargetPort().getStrVal()))
        .isEqualTo(metricsPort);
    assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("POD_NAME"));
  }

  private static int port(String bindAddress) {
    return Integer.parseInt(bindAddress.substring(bindAddress.lastIndexOf(':') + 1));
  }

  private static int containerPort(Container c, String name) {
    return c.getPorts().stream()
        .filter(p -> name.equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElseThrow();
  }
}

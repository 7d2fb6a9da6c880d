package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.process.BindAddress;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The webhook Deployment we ship starts the server with flags it accepts and probes it over plain
 * HTTP on the port its {@code --health-probe-bind-address} opens.
 */
class ShippedDeploymentTest {

  private static Container container(String file) throws Exception {
    Path path = ManifestPaths.overlay("deploy").resolve(file);
    try (InputStream in = Files.newInputStream(path)) {
      return dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
          .unmarshal(in, Deployment.class)
          .getSpec()
          .getTemplate()
          .getSpec()
          .getContainers()
          .get(0);
    }
  }

  private static String selectorArg(List<String> args) {
    return args.stream()
        .filter(a -> a.startsWith("--capi-machine-selector="))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theWebhookServersArgumentsParseAndItsProbesUseTheProbePort() throws Exception {
    Container webhook = container("webhook_deployment.yaml");
    List<String> args = webhook.getArgs();
    new CommandLine(new WebhookServerMain()).parseArgs(args.toArray(String[]::new));
    String probeAddress =
        args.stream()
            .filter(a -> a.startsWith("--health-probe-bind-address="))
            .findFirst()
            .orElseThrow()
            .substring("--health-probe-bind-address=".length());
    int probePort = BindAddress.parse(probeAddress).orElseThrow().getPort();
    int healthPort =
        webhook.getPorts().stream()
            .filter(p -> "health".equals(p.getName()))
            .findFirst()
            .orElseThrow()
            .getContainerPort();
    assertThat(healthPort).isEqualTo(probePort);
    for (var probe : List.of(webhook.getReadinessProbe(), webhook.getLivenessProbe())) {
      assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("health");
      assertThat(probe.getHttpGet().getScheme()).isIn(null, "HTTP");
    }
    assertThat(webhook.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(webhook.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
  }

  @Test
  void podsOutliveTheServersDrainOfRequestsInFlight() throws Exception {
    Path path = ManifestPaths.overlay("deploy").resolve("webhook_deployment.yaml");
    Deployment deployment;
    try (InputStream in = Files.newInputStream(path)) {
      deployment =
          dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
              .unmarshal(in, Deployment.class);
    }
    var pod = deployment.getSpec().getTemplate().getSpec();
    long preStop = pod.getContainers().get(0).getLifecycle().getPreStop().getSleep().getSeconds();
    assertThat(pod.getTerminationGracePeriodSeconds())
        .isGreaterThan(preStop + WebhookServer.IN_FLIGHT_DRAIN.toSeconds());
    assertThat(deployment.getSpec().getReplicas()).isGreaterThanOrEqualTo(2);
    assertThat(
            deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .isZero();
  }

  @Test
  void webhookServerAndControllerSelectTheSameCapiMachines() throws Exception {
    assertThat(selectorArg(container("webhook_deployment.yaml").getArgs()))
        .isEqualTo(selectorArg(container("controller_deployment.yaml").getArgs()));
  }
}

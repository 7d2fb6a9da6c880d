package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ControllerMainTest {

  private static ControllerMain parse(String... args) {
    ControllerMain main = new ControllerMain();
    new CommandLine(main).parseArgs(args);
    return main;
  }

  @Test
  void defaultsAreIronCoresAndOurs() {
    ControllerMain main = parse();
    assertThat(main.gracePeriod).isEqualTo(Duration.ofSeconds(50));
    assertThat(main.capiMachineSelector).isEmpty();
    assertThat(main.leaderElect).isFalse();
  }

  @Test
  void badSelectorsAndDurationsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> parse("--capi-machine-selector=a==b==c"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("invalid label selector \"a==b==c\" at position 5");
    assertThatThrownBy(() -> parse("--machine-pool-lifecycle-grace-period=50"))
        .hasMessageContaining("invalid duration \"50\"");
  }

  @Test
  void tooFewWorkersIsAUsageError() {
    int code =
        new CommandLine(new ControllerMain())
            .setErr(new java.io.PrintWriter(java.io.Writer.nullWriter()))
            .execute("--workers=0");
    assertThat(code).isEqualTo(2);
  }

  @Test
  void theShippedDeploymentsArgumentsParse() throws Exception {
    Deployment deployment;
    try (InputStream in =
        Files.newInputStream(
            ManifestPaths.overlay("deploy").resolve("controller_deployment.yaml"))) {
      deployment = Serialization.unmarshal(in, Deployment.class);
    }
    List<String> args =
        deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertThat(args).isNotEmpty();
    ControllerMain main = parse(args.toArray(String[]::new));
    assertThat(main.leaderElect).isTrue();
    assertThat(main.gracePeriod).isEqualTo(Duration.ofSeconds(50));
  }
}

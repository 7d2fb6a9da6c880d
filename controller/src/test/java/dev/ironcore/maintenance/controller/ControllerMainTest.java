package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.process.Cli;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ControllerMainTest {

  private static ControllerMain parse(String... args) {
    ControllerMain main = new ControllerMain();
    Cli.of(main).parseArgs(args);
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

  private record Run(int exitCode, String err) {}

  /** The real command line as {@link ControllerMain#main} runs it, with --validate-flags. */
  private static Run validate(String... args) {
    java.io.StringWriter err = new java.io.StringWriter();
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = "--validate-flags";
    int code = Cli.of(new ControllerMain()).setErr(new java.io.PrintWriter(err, true)).execute(all);
    return new Run(code, err.toString());
  }

  /** What make run passes before CONTROLLER_ARGS (hack/run-local.sh). */
  private static final String[] MAKE_RUN_FLAGS = {
    "--capi-machine-selector=",
    "--health-probe-bind-address=127.0.0.1:8081",
    "--metrics-bind-address=127.0.0.1:8080"
  };

  @Test
  void controllerArgsOverrideTheFlagsMakeRunPasses() {
    String[] args =
        java.util.stream.Stream.concat(
                java.util.Arrays.stream(MAKE_RUN_FLAGS),
                java.util.stream.Stream.of(
                    "--machine-pool-lifecycle-grace-period=20s",
                    "--metrics-bind-address=0",
                    "--machine-pool-lifecycle-grace-period=30s"))
            .toArray(String[]::new);
    assertThat(validate(args)).isEqualTo(new Run(0, ""));
    ControllerMain main = parse(args);
    assertThat(main.gracePeriod).isEqualTo(Duration.ofSeconds(30));
    assertThat(main.metricsBindAddress).isEqualTo("0");
  }

  @Test
  void valuesThatMakeNoSenseAreOneLineWithTheAllowedRange() {
    for (String flag :
        List.of(
            "--resync-period",
            "--machine-pool-lifecycle-grace-period",
            "--informer-down-threshold",
            "--orphaned-machine-grace")) {
      for (String zero : List.of("0", "0s")) {
        assertThat(validate(flag + "=" + zero))
            .isEqualTo(
                new Run(
                    2,
                    "ironcore-maintenance-controller: "
                        + flag
                        + " must be more than 0 (e.g. 30s, 5m), got 0s\n"));
      }
      assertThat(validate(flag + "=-5s").err()).contains(flag, "invalid duration \"-5s\"");
    }
    assertThat(validate("--workers=0"))
        .isEqualTo(
            new Run(2, "ironcore-maintenance-controller: --workers must be at least 1, got 0\n"));
    assertThat(validate("--pool-health-workers=0"))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: --pool-health-workers must be at least 1, got 0\n"));
    assertThat(validate("--max-concurrent-drains=-1"))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: --max-concurrent-drains must be at least 0,"
                    + " got -1\n"));
    assertThat(validate("--leader-election-id=").exitCode()).isEqualTo(2);
    // 0 turns the drain timeout off: allowed
    assertThat(validate("--drain-timeout=0")).isEqualTo(new Run(0, ""));
  }

  @Test
  void everyBindAddressIsCheckedWhenTheFlagsAreParsed() {
    for (String flag : List.of("--health-probe-bind-address", "--metrics-bind-address")) {
      for (String bad :
          List.of(
              "garbage", "garbage.invalid:8081", "999.1.1.1:8081", "192.0.2.1:8081", ":70000")) {
        Run r = validate(flag + "=" + bad);
        assertThat(r.exitCode()).as(flag + "=" + bad).isEqualTo(2);
        assertThat(r.err().lines()).hasSize(1);
        assertThat(r.err()).startsWith("ironcore-maintenance-controller: " + flag + ": ");
        assertThat(r.err()).contains(bad);
      }
      assertThat(validate(flag + "=localhost:0").exitCode()).isZero();
      assertThat(validate(flag + "=0").exitCode()).isZero();
    }
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
      deployment =
          dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
              .unmarshal(in, Deployment.class);
    }
    List<String> args =
        deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertThat(args).isNotEmpty();
    ControllerMain main = parse(args.toArray(String[]::new));
    assertThat(main.leaderElect).isTrue();
    assertThat(main.gracePeriod).isEqualTo(Duration.ofSeconds(50));
  }
}

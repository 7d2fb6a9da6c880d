package dev.ironcore.maintenance.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make run} ({@code hack/run-local.sh}, the real script, copied into a scratch checkout so
 * that its {@code .local/} is the test's): what it refuses before it builds, starts or writes
 * anything.
 */
class RunLocalScriptTest {
  @TempDir Path checkout;
  Path local;

  private record Run(int exitCode, String err) {}

  @BeforeEach
  void copyScript() throws IOException {
    Path repo = ManifestPaths.overlay("local").getParent().getParent();
    Files.createDirectories(checkout.resolve("hack"));
    Files.copy(repo.resolve("hack/run-local.sh"), checkout.resolve("hack/run-local.sh"));
    local = checkout.resolve(".local");
  }

  /**
   * As {@link #rawRun}, without the warnings about ports in the kernel's ephemeral range, where the
   * free ports this test picks lie.
   */
  private Run run(Map<String, String> env) throws Exception {
    Run raw = rawRun(env);
    return new Run(
        raw.exitCode(),
        raw.err()
            .lines()
            .filter(l -> !(l.startsWith("[run] warning:") && l.contains("ephemeral port range")))
            .map(l -> l + "\n")
            .collect(java.util.stream.Collectors.joining()));
  }

  private Run rawRun(Map<String, String> env) throws Exception {
    List<Integer> ports = FreePorts.pick(3);
    ProcessBuilder pb =
        new ProcessBuilder("bash", checkout.resolve("hack/run-local.sh").toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("WEBHOOK_PORT", "" + ports.get(0));
    pb.environment().put("CONTROLLER_HEALTH_PORT", "" + ports.get(1));
    pb.environment().put("CONTROLLER_METRICS_PORT", "" + ports.get(2));
    pb.environment().put("MVN", "false"); // never build, should the script get that far
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(
        p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  /**
   * A port inside the kernel's ephemeral range may be taken by an outgoing connection minutes
   * later, after the build (fresh eyes lost a 10-minute build so): said before the build, one line
   * per such port; a port below the range is not named.
   */
  @Test
  void aPortInTheEphemeralRangeIsWarnedAboutBeforeTheBuild() throws Exception {
    String[] range =
        // a reader, not Files.readString: a /proc file's size is 0, and that read only "3"
        Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
            .get(0)
            .trim()
            .split("\\s+");
    int low = Integer.parseInt(range[0]);
    org.junit.jupiter.api.Assumptions.assumeTrue(low > 20781, "ephemeral range starts low");
    String inRange = "" + (low + 7);
    Run raw =
        rawRun(Map.of("WEBHOOK_PORT", inRange, "CONTROLLER_HEALTH_PORT", "20781", "DEMO", "maybe"));
    assertThat(raw.exitCode()).isEqualTo(1);
    assertThat(raw.err())
        .contains(
            "[run] warning: WEBHOOK_PORT=" + inRange + " lies in the kernel's ephemeral port range")
        .doesNotContain("CONTROLLER_HEALTH_PORT=20781")
        .endsWith("[run] DEMO='maybe': use true or false\n");
  }

  @Test
  void badPortsStopMakeRunBeforeAnythingIsWritten() throws Exception {
    assertThat(run(Map.of("WEBHOOK_PORT", "abc")))
        .isEqualTo(
            new Run(1, "[run] WEBHOOK_PORT must be a port number from 1 to 65535, got 'abc'\n"));
    assertThat(run(Map.of("CONTROLLER_HEALTH_PORT", "70000")))
        .isEqualTo(
            new Run(
                1,
                "[run] CONTROLLER_HEALTH_PORT must be a port number from 1 to 65535, got '70000'\n"));
    assertThat(run(Map.of("CONTROLLER_METRICS_PORT", "0")).exitCode()).isEqualTo(1);
    assertThat(run(Map.of("WEBHOOK_PORT", "20799", "CONTROLLER_METRICS_PORT", "20799")))
        .isEqualTo(
            new Run(
                1,
                "[run] WEBHOOK_PORT and CONTROLLER_METRICS_PORT are both 20799; give each its own"
                    + " port\n"));
    assertThat(local).doesNotExist();
  }

  /**
   * Fresh eyes: DEMO=maybe silently skipped the demo, while TWO_CLUSTERS=yes was refused. Worded as
   * make certs' DRY_RUN and make image's PUSH: the value, then what is accepted.
   */
  @Test
  void switchesTakeTrueOrFalseOnly() throws Exception {
    assertThat(run(Map.of("DEMO", "maybe")))
        .isEqualTo(new Run(1, "[run] DEMO='maybe': use true or false\n"));
    assertThat(run(Map.of("TWO_CLUSTERS", "yes")))
        .isEqualTo(new Run(1, "[run] TWO_CLUSTERS='yes': use true or false\n"));
    assertThat(local.resolve("run.pid")).as("nothing started").doesNotExist();
  }

  /**
   * The selector has a variable of its own, given to both processes: set in either one's extra
   * flags, the webhook server and the controller would handle different CAPI Machines (fresh eyes:
   * WEBHOOK_ARGS' was accepted while the README said refused).
   */
  @Test
  void aSelectorInEitherProcessesArgsIsRefusedBeforeTheBuild() throws Exception {
    for (String args : List.of("CONTROLLER_ARGS", "WEBHOOK_ARGS")) {
      assertThat(run(Map.of(args, "--zap-log-level=debug --capi-machine-selector=role=other")))
          .isEqualTo(
              new Run(
                  1,
                  "[run] use CAPI_MACHINE_SELECTOR='...' instead of --capi-machine-selector in "
                      + args
                      + ": the webhook server must mark exactly the CAPI Machines the controller"
                      + " drains\n"));
    }
    assertThat(local.resolve("run.pid")).as("nothing started").doesNotExist();
  }

  /**
   * make run points both processes at its own control plane; a {@code --kubeconfig} in either's
   * flags (controller-runtime's flag, which both take) would send it to another cluster. {@code
   * --ironcore-kubeconfig} is TWO_CLUSTERS' and refused by its own check.
   */
  @Test
  void aKubeconfigInEitherProcessesArgsIsRefusedBeforeTheBuild() throws Exception {
    for (String args : List.of("CONTROLLER_ARGS", "WEBHOOK_ARGS")) {
      assertThat(run(Map.of(args, "--zap-log-level=debug --kubeconfig=/tmp/other")))
          .isEqualTo(
              new Run(
                  1,
                  "[run] make run points both processes at its own control plane"
                      + " (.local/kubeconfig): remove --kubeconfig from "
                      + args
                      + "\n"));
    }
    assertThat(run(Map.of("CONTROLLER_ARGS", "--ironcore-kubeconfig=/tmp/other")))
        .isEqualTo(
            new Run(
                1,
                "[run] use TWO_CLUSTERS=true instead of --ironcore-kubeconfig in CONTROLLER_ARGS\n"));
    assertThat(local.resolve("run.pid")).as("nothing started").doesNotExist();
  }

  /**
   * The webhook server's port and address are make run's: the webhooks and the readiness check
   * point at 127.0.0.1:WEBHOOK_PORT. A tester's {@code WEBHOOK_ARGS='--bind-address=127.0.0.2'} was
   * accepted, the server listened on 127.0.0.2 and make run failed 60 s later ("webhook server not
   * ready after 60 s").
   */
  @Test
  void aPortOrBindAddressInWebhookArgsIsRefusedBeforeTheBuild() throws Exception {
    String bindAddress =
        "[run] WEBHOOK_ARGS sets --bind-address: make run serves the webhooks on 127.0.0.1, which"
            + " the webhooks and its readiness check point at\n";
    assertThat(run(Map.of("WEBHOOK_ARGS", "--zap-log-level=debug --bind-address=127.0.0.2")))
        .isEqualTo(new Run(1, bindAddress));
    assertThat(run(Map.of("WEBHOOK_ARGS", "--bind-address 0.0.0.0")))
        .isEqualTo(new Run(1, bindAddress));
    assertThat(run(Map.of("WEBHOOK_ARGS", "--port=9444")))
        .isEqualTo(
            new Run(
                1,
                "[run] WEBHOOK_ARGS sets --port: set WEBHOOK_PORT instead (make run waits for the"
                    + " server there and points the webhooks at it)\n"));
    assertThat(local.resolve("run.pid")).as("nothing started").doesNotExist();
  }

  @Test
  void aWebhookPortInWebhookArgsThatIsTheControllersIsRefusedBeforeTheBuild() throws Exception {
    Map<String, String> ports =
        Map.of("CONTROLLER_HEALTH_PORT", "20781", "CONTROLLER_METRICS_PORT", "20780");
    Map<String, String> equals = new java.util.HashMap<>(ports);
    equals.put("WEBHOOK_ARGS", "--zap-log-level=debug --metrics-bind-address=127.0.0.1:20780");
    assertThat(run(equals))
        .isEqualTo(
            new Run(
                1,
                "[run] WEBHOOK_ARGS --metrics-bind-address uses port 20780, which is"
                    + " CONTROLLER_METRICS_PORT; give it another port\n"));
    Map<String, String> spaced = new java.util.HashMap<>(ports);
    spaced.put("WEBHOOK_ARGS", "--health-probe-bind-address :20781");
    assertThat(run(spaced))
        .isEqualTo(
            new Run(
                1,
                "[run] WEBHOOK_ARGS --health-probe-bind-address uses port 20781, which is"
                    + " CONTROLLER_HEALTH_PORT; give it another port\n"));
    assertThat(local.resolve("run.pid"))
        .as("a refused make run leaves no pid behind")
        .doesNotExist();
  }

  @Test
  void aSecondMakeRunOfTheSameCheckoutLeavesTheFirstOnesFilesAlone() throws Exception {
    Path etcdData = Files.createDirectories(local.resolve("etcd/member"));
    Files.writeString(etcdData.resolve("db"), "the running control plane's data");
    Files.writeString(local.resolve("kubeconfig"), "the running make run's kubeconfig");
    // the first make run: holds .local/run.lock and wrote its pid, as the script does
    Process first =
        new ProcessBuilder(
                "bash",
                "-c",
                "exec 9>>\"$1/run.lock\"; flock 9; echo $$ >\"$1/run.pid\"; exec sleep 300",
                "first",
                local.toString())
            .start();
    try {
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.exists(local.resolve("run.pid")));

      assertThat(run(Map.of()))
          .isEqualTo(
              new Run(
                  1,
                  "[run] another make run of this checkout is running (pid "
                      + first.pid()
                      + ") and owns "
                      + local
                      + "; stop it first (Ctrl-C there), or use another checkout\n"));

      // make run itself was killed, its children (which inherit the lock) still run
      Files.writeString(local.resolve("run.pid"), "999999999\n");
      Run orphans = run(Map.of());
      assertThat(orphans.exitCode()).isEqualTo(1);
      assertThat(orphans.err())
          .startsWith("[run] processes of an earlier make run of this checkout still use ")
          .contains("pids: " + first.pid() + ")");

      // and a controller restarted by hand, which does not hold the lock: each pid on its own
      Process controller = handRestartedController();
      try {
        Files.writeString(local.resolve("controller.pid"), controller.pid() + "\n");
        long low = Math.min(first.pid(), controller.pid());
        long high = Math.max(first.pid(), controller.pid());
        assertThat(run(Map.of()).err()).contains("pids: " + low + " " + high + ")");
      } finally {
        controller.destroyForcibly();
        controller.waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      first.destroyForcibly();
      first.waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(etcdData.resolve("db")).hasContent("the running control plane's data");
    assertThat(local.resolve("kubeconfig")).hasContent("the running make run's kubeconfig");
  }

  /** A process with the command line of this checkout's controller (two commands: not exec'd). */
  private Process handRestartedController() throws IOException {
    return new ProcessBuilder(
            "bash",
            "-c",
            "sleep 300; true",
            checkout.resolve("controller/target/classes").toString(),
            "dev.ironcore.maintenance.controller.ControllerMain")
        .start();
  }

  /**
   * A controller restarted by hand with {@code .local/controller.sh} does not hold the lock: make
   * run named only the lock's holders, and once they were stopped said only that a port was taken.
   */
  @Test
  void aControllerRestartedByHandIsNamedByItsPid() throws Exception {
    Files.createDirectories(local);
    // a process with the controller's command line of this checkout (not exec'd by bash: two
    // commands)
    Process controller = handRestartedController();
    try {
      Files.writeString(local.resolve("controller.pid"), controller.pid() + "\n");
      assertThat(run(Map.of()))
          .isEqualTo(
              new Run(
                  1,
                  "[run] a controller of an earlier make run (pid "
                      + controller.pid()
                      + ", started by "
                      + local
                      + "/controller.sh) still runs; stop it first: kill "
                      + controller.pid()
                      + "\n"));
    } finally {
      controller.destroyForcibly();
      controller.waitFor(10, TimeUnit.SECONDS);
    }
  }
}

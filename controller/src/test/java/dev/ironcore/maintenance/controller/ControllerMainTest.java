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

  @Test
  void anEmptyValueSetIsASelectorAsForKubectl() {
    // labels.Parse reads "a in ()" as a in (""): kubectl and the API server accept it
    assertThat(validate("--capi-machine-selector=a in ()")).isEqualTo(new Run(0, ""));
    assertThat(validate("--capi-machine-selector=a notin (),b")).isEqualTo(new Run(0, ""));
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
                    "ironcore-maintenance-controller: " + flag + " must be more than 0, got 0s\n"));
      }
      assertThat(validate(flag + "=-5s").err()).contains(flag, "invalid duration \"-5s\"");
    }
    assertThat(validate("--workers=0"))
        .isEqualTo(
            new Run(
                2, "ironcore-maintenance-controller: --workers must be from 1 to 1000, got 0\n"));
    assertThat(validate("--pool-health-workers=0"))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: --pool-health-workers must be from 1 to 1000, got 0\n"));
    assertThat(validate("--workers=100000"))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: --workers must be from 1 to 1000, got 100000\n"));
    assertThat(validate("--max-concurrent-drains=-1"))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: --max-concurrent-drains must be at least 0,"
                    + " got -1\n"));
    assertThat(validate("--leader-election-id=").exitCode()).isEqualTo(2);
    // the Lease's name and namespace, as the API server would refuse them on every try
    assertThat(validate("--leader-election-id=Bad_Name"))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: --leader-election-id=Bad_Name: the Lease's name"
                    + " must be a lowercase RFC 1123 subdomain: lowercase alphanumeric characters,"
                    + " '-' or '.', starting and ending with an alphanumeric character (e.g."
                    + " 'example.com')\n"));
    for (String ns : List.of("Bad_NS", "a.b", "x".repeat(64), "-a")) {
      Run r = validate("--leader-election-namespace=" + ns);
      assertThat(r.exitCode()).as(ns).isEqualTo(2);
      assertThat(r.err())
          .as(ns)
          .startsWith(
              "ironcore-maintenance-controller: --leader-election-namespace="
                  + ns
                  + ": a namespace name must be a lowercase RFC 1123 label");
    }
    assertThat(
            validate(
                "--leader-election-id=ironcore.maintenance-1",
                "--leader-election-namespace=kube-system"))
        .isEqualTo(new Run(0, ""));
    // 0 turns the drain timeout off: allowed
    assertThat(validate("--drain-timeout=0")).isEqualTo(new Run(0, ""));
  }

  @Test
  void aPositiveDurationUnder1msIsRefusedNotTurnedOff() {
    // 0.4ms was rounded to 0, which turns the drain timeout off; 0.0001ms was refused as "0s"
    for (String flag : List.of("--drain-timeout", "--resync-period")) {
      for (String tiny : List.of("0.4ms", "0.0001ms")) {
        assertThat(validate(flag + "=" + tiny))
            .isEqualTo(
                new Run(
                    2,
                    "ironcore-maintenance-controller: Invalid value for option '"
                        + flag
                        + "': invalid duration \""
                        + tiny
                        + "\": less than 1ms (durations here are whole milliseconds)\n"));
      }
    }
    assertThat(parse("--drain-timeout=1.4ms").drainTimeout).isEqualTo(Duration.ofMillis(1));
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
  void theMetricsNeedAPortOtherThanTheProbes() {
    Run r =
        validate("--health-probe-bind-address=:18081", "--metrics-bind-address=127.0.0.1:18081");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "ironcore-maintenance-controller: --metrics-bind-address: port 18081 is"
                + " --health-probe-bind-address's; the metrics need a port of their own\n");
    assertThat(validate("--health-probe-bind-address=:0", "--metrics-bind-address=:0").exitCode())
        .isZero();
  }

  /** The controller as its own process; its exit code and everything it wrote. */
  private static Run start(java.nio.file.Path dir, String kubeconfig, String... args)
      throws Exception {
    java.nio.file.Path log = dir.resolve("controller.log");
    ProcessBuilder pb =
        dev.ironcore.maintenance.testkit.JavaMain.processBuilder(ControllerMain.class, args)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("KUBECONFIG", kubeconfig);
    Process p = pb.start();
    try {
      assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS))
          .as("exits on its own")
          .isTrue();
      return new Run(p.exitValue(), Files.readString(log));
    } finally {
      p.destroyForcibly();
    }
  }

  private static String kubeconfig(java.nio.file.Path dir, int port) throws Exception {
    java.nio.file.Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
            + "    server: https://127.0.0.1:"
            + port
            + "\n    insecure-skip-tls-verify: true\n"
            + "users:\n- name: u\n  user: {token: t}\n"
            + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    return file.toString();
  }

  /**
   * What stops a start after the flags is ONE line naming what failed, exit code 1: the metrics
   * port taken (named as such, also with the probes off), an API server that refuses connections
   * (which request and why, not fabric8's "An error has occurred.", message-less wrappers and 40
   * lines of stack trace; fabric8 retries for about 20 s first).
   */
  @Test
  void aFailedStartIsOneLineWithTheReason(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Run r =
          start(
              dir,
              kubeconfig(dir, closed),
              "--health-probe-bind-address=0",
              "--metrics-bind-address=127.0.0.1:" + taken.getLocalPort());
      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.err())
          .endsWith(
              "ironcore-maintenance-controller: cannot listen on --metrics-bind-address 127.0.0.1:"
                  + taken.getLocalPort()
                  + ": Address already in use\n");
    }
    Run unreachable =
        start(
            dir,
            kubeconfig(dir, closed),
            "--health-probe-bind-address=0",
            "--metrics-bind-address=0",
            "--log-format=json",
            // the same API server through another file: said, not refused (its credentials may
            // be meant to differ)
            "--ironcore-kubeconfig="
                + Files.copy(java.nio.file.Path.of(kubeconfig(dir, closed)), dir.resolve("kc2")));
    assertThat(unreachable.exitCode()).isEqualTo(1);
    assertThat(unreachable.err())
        .contains(
            "--ironcore-kubeconfig reaches the API server of the CAPI Machines (https://127.0.0.1:"
                + closed
                + "/): its objects are watched through two clients");
    List<String> lines = unreachable.err().lines().toList();
    String last = lines.get(lines.size() - 1);
    assertThat(lines).allMatch(l -> l.startsWith("{"), "every line JSON");
    assertThat(last)
        .contains("\"level\":\"ERROR\"")
        .contains(
            "cannot read which versions of compute.ironcore.dev https://127.0.0.1:"
                + closed
                + "/ serves: cannot connect (ConnectException)\"")
        .doesNotContain("An error has occurred")
        .doesNotContain("ClosedChannelException");
    assertThat(unreachable.err()).doesNotContain("\tat ");

    java.nio.file.Path notYaml = dir.resolve("not-yaml");
    Files.writeString(notYaml, "not: yaml: [\n");
    Run garbage =
        start(dir, notYaml.toString(), "--health-probe-bind-address=0", "--metrics-bind-address=0");
    assertThat(garbage.exitCode()).isEqualTo(2);
    assertThat(garbage.err().lines().toList())
        .last()
        .asString()
        .isEqualTo(
            "ironcore-maintenance-controller: KUBECONFIG="
                + notYaml
                + ": the file is not YAML (line 1, column 10)");
    // fresh eyes (session 40): a token named by KUBECONFIG was quoted into the log
    java.nio.file.Path token = dir.resolve("token");
    Files.writeString(token, "eyJhbGciOiJSUzI1NiJ9.SIGNATURE-SECRET");
    Run tokenRun =
        start(dir, token.toString(), "--health-probe-bind-address=0", "--metrics-bind-address=0");
    assertThat(tokenRun.exitCode()).isEqualTo(2);
    assertThat(tokenRun.err()).doesNotContain("SECRET").doesNotContain("eyJ");
    assertThat(tokenRun.err().lines().toList())
        .last()
        .asString()
        .isEqualTo(
            "ironcore-maintenance-controller: KUBECONFIG="
                + token
                + ": the file is not a kubeconfig: it holds a text, not a mapping of clusters,"
                + " contexts and users (its content is not shown: it may be a credential)");
    // a kubeconfig the check passes and fabric8's parser refuses (a token given as a list) is a
    // flag error too (it ended the start with exit 1), named by place
    java.nio.file.Path listToken = dir.resolve("list-token");
    Files.writeString(
        listToken,
        "apiVersion: v1\nkind: Config\n"
            + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:"
            + closed
            + "'}\n"
            + "users:\n- name: u\n  user: {token: [SECRET-TOKEN]}\n"
            + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    Run listRun =
        start(
            dir, listToken.toString(), "--health-probe-bind-address=0", "--metrics-bind-address=0");
    assertThat(listRun.exitCode()).isEqualTo(2);
    assertThat(listRun.err()).doesNotContain("SECRET");
    assertThat(listRun.err().lines().toList())
        .last()
        .asString()
        .isEqualTo(
            "ironcore-maintenance-controller: KUBECONFIG="
                + listToken
                + ": cannot be read as a kubeconfig at users[0].user.token: a value of the wrong"
                + " type (its content is not shown: it may be a credential)");
    // review (session 41): fabric8 reads the certificate files when it builds the client; a
    // missing one said "An error has occurred." and the path only
    java.nio.file.Path missingCa = dir.resolve("missing-ca");
    dev.ironcore.maintenance.testkit.MissingCaKubeconfig.write(missingCa, closed);
    Run missingCaRun =
        start(
            dir, missingCa.toString(), "--health-probe-bind-address=0", "--metrics-bind-address=0");
    assertThat(missingCaRun.exitCode()).isEqualTo(2);
    assertThat(missingCaRun.err().lines().toList())
        .last()
        .asString()
        .isEqualTo(
            "ironcore-maintenance-controller: KUBECONFIG="
                + missingCa
                + ": cannot build a client of it: no such file "
                + dir.resolve("pki/ca.crt"));
    // the same file as --ironcore-kubeconfig: named as picocli names the flag's other refusals
    Run ironcoreRun =
        start(
            dir,
            kubeconfig(dir, closed),
            "--ironcore-kubeconfig=" + missingCa,
            "--health-probe-bind-address=0",
            "--metrics-bind-address=0");
    assertThat(ironcoreRun.exitCode()).isEqualTo(2);
    assertThat(ironcoreRun.err().lines().toList())
        .last()
        .asString()
        .isEqualTo(
            "ironcore-maintenance-controller: Invalid value for option '--ironcore-kubeconfig':"
                + " kubeconfig "
                + missingCa
                + ": cannot build a client of it: no such file "
                + dir.resolve("pki/ca.crt"));
  }

  /**
   * {@code --kubeconfig} (controller-runtime's flag) is checked as {@code --ironcore-kubeconfig}: a
   * file that does not exist, or whose context cannot be used, is a flag error naming it; and it
   * comes before {@code KUBECONFIG}, which names no file here and is not even checked.
   */
  @Test
  void theKubeconfigFlagIsCheckedAndComesBeforeKubeconfig(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path missing = dir.resolve("nonexistent");
    assertThat(validate("--kubeconfig=" + missing))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: Invalid value for option '--kubeconfig': no"
                    + " readable kubeconfig file at "
                    + missing
                    + "\n"));
    assertThat(validate("--kubeconfig="))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: Invalid value for option '--kubeconfig': must"
                    + " name a kubeconfig file, not be empty\n"));
    java.nio.file.Path file = java.nio.file.Path.of(kubeconfig(dir, 6443));
    Files.writeString(file, Files.readString(file).replace("user: u}", "user: bob}"));
    assertThat(validate("--kubeconfig=" + file).err())
        .isEqualTo(
            "ironcore-maintenance-controller: Invalid value for option '--kubeconfig': kubeconfig "
                + file
                + ": context \"x\" names user \"bob\", which is not in the file\n");

    java.nio.file.Path missingCa = dir.resolve("missing-ca");
    dev.ironcore.maintenance.testkit.MissingCaKubeconfig.write(missingCa, 6443);
    Run run =
        start(
            dir,
            missing.toString(), // KUBECONFIG: no such file, refused were it read
            "--kubeconfig=" + missingCa,
            "--health-probe-bind-address=0",
            "--metrics-bind-address=0");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines().toList())
        .last()
        .asString()
        .isEqualTo(
            "ironcore-maintenance-controller: Invalid value for option '--kubeconfig':"
                + " kubeconfig "
                + missingCa
                + ": cannot build a client of it: no such file "
                + dir.resolve("pki/ca.crt"));
  }

  /**
   * {@code --ironcore-kubeconfig} whose context names a user the file does not have: fabric8 would
   * connect without credentials; a flag error naming the file, the context and the user instead.
   */
  @Test
  void anIronCoreKubeconfigWhoseContextCannotBeUsedIsAFlagError(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = java.nio.file.Path.of(kubeconfig(dir, 6443));
    Files.writeString(file, Files.readString(file).replace("user: u}", "user: bob}"));
    assertThat(validate("--ironcore-kubeconfig=" + file))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: Invalid value for option"
                    + " '--ironcore-kubeconfig': kubeconfig "
                    + file
                    + ": context \"x\" names user \"bob\", which is not in the file\n"));
  }

  /**
   * Fresh eyes (session 38): an empty {@code --ironcore-kubeconfig} failed with a
   * NullPointerException's text, one of garbage with fabric8's "An error has occurred.".
   */
  @Test
  void anEmptyOrUnparsableIronCoreKubeconfigIsAFlagErrorWithItsReason(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path empty = Files.writeString(dir.resolve("empty.kc"), "");
    assertThat(validate("--ironcore-kubeconfig=" + empty))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: Invalid value for option"
                    + " '--ironcore-kubeconfig': kubeconfig "
                    + empty
                    + ": the file is empty (no cluster, no context; kubectl refuses it too)\n"));
    java.nio.file.Path garbage = Files.writeString(dir.resolve("garb.kc"), "{{{");
    Run r = validate("--ironcore-kubeconfig=" + garbage);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .startsWith(
            "ironcore-maintenance-controller: Invalid value for option '--ironcore-kubeconfig':"
                + " kubeconfig "
                + garbage
                + ": the file is not YAML (")
        .doesNotContain("An error has occurred")
        .hasLineCount(1);
    java.nio.file.Path listToken =
        Files.writeString(
            dir.resolve("list-token.kc"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
                + "users:\n- name: u\n  user: {token: [SECRET-TOKEN]}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    assertThat(validate("--ironcore-kubeconfig=" + listToken))
        .isEqualTo(
            new Run(
                2,
                "ironcore-maintenance-controller: Invalid value for option"
                    + " '--ironcore-kubeconfig': kubeconfig "
                    + listToken
                    + ": cannot be read as a kubeconfig at users[0].user.token: a value of the"
                    + " wrong type (its content is not shown: it may be a credential)\n"));
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

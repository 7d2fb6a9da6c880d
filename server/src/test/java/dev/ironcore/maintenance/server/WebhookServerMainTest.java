package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.process.Cli;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import dev.ironcore.maintenance.testkit.JavaMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class WebhookServerMainTest {
  @TempDir Path dir;

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Cli.of(new WebhookServerMain());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void helpListsTheFlagsWithDefaults() {
    Run r = run("--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains(
            "--port",
            "9443",
            "--bind-address",
            "0.0.0.0",
            "--tls-cert-file",
            "--tls-private-key-file",
            "--capi-machine-selector",
            "--max-threads",
            "16",
            "--max-connections",
            "256",
            "--health-probe-bind-address",
            "--tls-provider",
            "conscrypt");
  }

  @Test
  void tooFewOrTooManyThreadsIsAFlagError() {
    Run r = run("--tls-cert-file", "c", "--tls-private-key-file", "k", "--max-threads", "4");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--max-threads must be from 8 to 1000, got 4");
    r = run("--tls-cert-file", "c", "--tls-private-key-file", "k", "--max-threads", "160000");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--max-threads must be from 8 to 1000, got 160000");
  }

  @Test
  void noConnectionsIsAFlagError() {
    Run r = run("--tls-cert-file", "c", "--tls-private-key-file", "k", "--max-connections", "0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--max-connections must be at least 1, got 0");
  }

  @Test
  void aBadHealthProbeBindAddressIsAFlagError() {
    for (String bad : List.of("8081", ":70000", "192.0.2.1:8081")) {
      Run r =
          run(
              "--tls-cert-file",
              "c",
              "--tls-private-key-file",
              "k",
              "--health-probe-bind-address=" + bad);
      assertThat(r.exitCode()).as(bad).isEqualTo(2);
      assertThat(r.err())
          .startsWith("webhook-server: --health-probe-bind-address: invalid bind address")
          .contains(bad);
      assertThat(r.err().lines()).hasSize(1);
    }
  }

  @Test
  void aHealthProbePortEqualToTheWebhookPortIsAFlagError() {
    Run r =
        run(
            "--tls-cert-file=c",
            "--tls-private-key-file=k",
            "--port=9443",
            "--health-probe-bind-address=:9443");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .startsWith(
            "webhook-server: --health-probe-bind-address: port 9443 is the webhook's --port; the"
                + " probes need a port of their own");
  }

  @Test
  void aMetricsPortEqualToTheWebhookOrProbePortIsAFlagError() {
    Run webhook =
        run(
            "--tls-cert-file=c",
            "--tls-private-key-file=k",
            "--port=9443",
            "--metrics-bind-address=:9443");
    assertThat(webhook.exitCode()).isEqualTo(2);
    assertThat(webhook.err())
        .startsWith(
            "webhook-server: --metrics-bind-address: port 9443 is the webhook's --port; the"
                + " metrics need a port of their own");
    Run probes =
        run(
            "--tls-cert-file=c",
            "--tls-private-key-file=k",
            "--health-probe-bind-address=:8081",
            "--metrics-bind-address=127.0.0.1:8081");
    assertThat(probes.exitCode()).isEqualTo(2);
    assertThat(probes.err())
        .startsWith(
            "webhook-server: --metrics-bind-address: port 8081 is --health-probe-bind-address's;"
                + " the metrics need a port of their own");
    Run malformed =
        run("--tls-cert-file=c", "--tls-private-key-file=k", "--metrics-bind-address=8080");
    assertThat(malformed.exitCode()).isEqualTo(2);
    assertThat(malformed.err()).startsWith("webhook-server: --metrics-bind-address: ");
  }

  /** make run checks WEBHOOK_ARGS this way before its control plane writes certificates. */
  @Test
  void validateFlagsChecksTheFlagsAndReadsNothing() {
    Run ok =
        run(
            "--tls-cert-file=" + dir.resolve("not-yet.crt"),
            "--tls-private-key-file=" + dir.resolve("not-yet.key"),
            "--tls-provider=jdk",
            "--validate-flags");
    assertThat(ok.exitCode()).isZero();
    assertThat(ok.err()).isEmpty();
    Run bad = run("--tls-cert-file=c", "--tls-private-key-file=k", "--port=-1", "--validate-flags");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--port must be from 0 to 65535, got -1");
  }

  @Test
  void unknownTlsProviderIsAFlagError() {
    Run r = run("--tls-cert-file", "c", "--tls-private-key-file", "k", "--tls-provider", "openssl");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .contains(
            "--tls-provider", "unknown TLS provider 'openssl'; expected auto, conscrypt or jdk");
  }

  @Test
  void tlsProviderIsParsedCaseInsensitivelyAndDefaultsToAuto() {
    WebhookServerMain main = new WebhookServerMain();
    Cli.of(main).parseArgs("--tls-cert-file=c", "--tls-private-key-file=k");
    assertThat(main.tlsProvider).isEqualTo(dev.ironcore.maintenance.server.tls.TlsProvider.AUTO);
    Cli.of(main).parseArgs("--tls-cert-file=c", "--tls-private-key-file=k", "--tls-provider=JDK");
    assertThat(main.tlsProvider).isEqualTo(dev.ironcore.maintenance.server.tls.TlsProvider.JDK);
  }

  @Test
  void badSelectorIsAFlagError() {
    Run r =
        run(
            "--tls-cert-file",
            "c",
            "--tls-private-key-file",
            "k",
            "--capi-machine-selector",
            "a in (");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("invalid label selector");
  }

  @Test
  void aLaterValueOfARepeatedFlagWins() {
    WebhookServerMain main = new WebhookServerMain();
    Cli.of(main)
        .parseArgs(
            "--tls-cert-file=c",
            "--tls-private-key-file=k",
            "--port=9443",
            "--port=20743",
            "--bind-address=0.0.0.0",
            "--bind-address=127.0.0.1");
    assertThat(main.port).isEqualTo(20743);
    assertThat(main.bindAddress).isEqualTo("127.0.0.1");
  }

  @Test
  void bindAddressAndPortAreCheckedBeforeAnythingStarts() {
    TestCertificates certs = TestCertificates.create(dir);
    String[] tls = {
      "--tls-cert-file",
      certs.certFile().toString(),
      "--tls-private-key-file",
      certs.keyFile().toString(),
      "--no-eviction-warnings"
    };
    for (String bad : List.of("999.1.1.1", "garbage.invalid", "192.0.2.1")) {
      Run r = run(concat(tls, "--port=0", "--bind-address=" + bad));
      assertThat(r.exitCode()).as(bad).isEqualTo(2);
      assertThat(r.err()).startsWith("webhook-server: --bind-address: ").contains(bad);
      assertThat(r.err()).doesNotContain("Port already in use");
      assertThat(r.err().lines()).hasSize(1);
    }
    assertThat(run(concat(tls, "--port=999.1.1.1")).err())
        .isEqualTo(
            "webhook-server: Invalid value for option '--port': '999.1.1.1' is not an int\n");
    Run r = run(concat(tls, "--port=70000"));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("webhook-server: --port must be from 0 to 65535, got 70000\n");
  }

  /**
   * The server as its own process, which must exit on its own: its exit code and everything it
   * wrote (stdout and stderr).
   */
  private Run startAlone(java.util.Map<String, String> env, String... args) throws Exception {
    Path log = dir.resolve("server.log");
    ProcessBuilder pb =
        JavaMain.processBuilder(WebhookServerMain.class, args)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    try {
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the server exits on its own").isTrue();
      return new Run(p.exitValue(), "", java.nio.file.Files.readString(log));
    } finally {
      p.destroyForcibly();
    }
  }

  /** The server alone on a free loopback port with {@code KUBECONFIG=kubeconfig}. */
  private Run startWithKubeconfig(Path kubeconfig) throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    return startAlone(
        java.util.Map.of("KUBECONFIG", kubeconfig.toString()),
        "--port=0",
        "--bind-address=127.0.0.1",
        "--tls-cert-file=" + certs.certFile(),
        "--tls-private-key-file=" + certs.keyFile());
  }

  @Test
  void aMissingKubeconfigIsRefusedWithOneLine() throws Exception {
    Path missing = dir.resolve("nonexistent");
    Run r = startWithKubeconfig(missing);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "webhook-server: KUBECONFIG names "
                + missing
                + ", which does not exist (fix or unset KUBECONFIG; unset, the client uses"
                + " ~/.kube/config or the in-cluster service account)\n");
  }

  /**
   * {@code KUBECONFIG} whose current-context is not in the file: the eviction warnings' client
   * would go to {@code https://kubernetes.default.svc/} without credentials (in a pod: as the pod's
   * service account); refused at start with one line naming the file and the context.
   */
  @Test
  void aKubeconfigWhoseCurrentContextIsMissingIsRefusedWithOneLine() throws Exception {
    Path kubeconfig =
        java.nio.file.Files.writeString(
            dir.resolve("kubeconfig"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                + "    server: https://127.0.0.1:1\n"
                + "contexts:\n- name: x\n  context: {cluster: c}\n"
                + "current-context: foo\n");
    Run r = startWithKubeconfig(kubeconfig);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "webhook-server: KUBECONFIG="
                + kubeconfig
                + ": current-context \"foo\" is not a context of the file\n");
  }

  /**
   * Fresh eyes (session 40): {@code KUBECONFIG} naming a ServiceAccount token (or a private key)
   * started the server with a WARN that quoted the file's content. Refused at start, as the
   * controller refuses it, naming the file and never its content.
   */
  @Test
  void aKubeconfigThatIsACredentialIsRefusedWithoutQuotingIt() throws Exception {
    Path token =
        java.nio.file.Files.writeString(
            dir.resolve("token"), "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.SIGNATURE-SECRET");
    Run r = startWithKubeconfig(token);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "webhook-server: KUBECONFIG="
                + token
                + ": the file is not a kubeconfig: it holds a text, not a mapping of clusters,"
                + " contexts and users (its content is not shown: it may be a credential)\n");
  }

  /**
   * The server on a free loopback port with {@code env} applied to its environment, until it says
   * "no eviction warnings" (at most 60 s); checks that it still serves.
   *
   * @return its output so far (stdout and stderr)
   */
  private String serveWithoutEvictionWarnings(
      String name, java.util.function.Consumer<java.util.Map<String, String>> env, String... flags)
      throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    Path log = dir.resolve(name + ".log");
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--port=0",
                "--bind-address=127.0.0.1",
                "--tls-cert-file=" + certs.certFile(),
                "--tls-private-key-file=" + certs.keyFile()));
    args.addAll(List.of(flags));
    ProcessBuilder pb =
        JavaMain.processBuilder(WebhookServerMain.class, args.toArray(String[]::new))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    env.accept(pb.environment());
    Process p = pb.start();
    try {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(60))
          .until(() -> java.nio.file.Files.readString(log).contains("no eviction warnings"));
      assertThat(p.isAlive()).as("the server keeps serving").isTrue();
      return java.nio.file.Files.readString(log);
    } finally {
      p.destroyForcibly();
    }
  }

  /**
   * A kubeconfig fabric8's parser refuses (a token given as a list): refused at start by file and
   * place, never quoting it, as the controller and make certs refuse it (fresh eyes, session 51:
   * the server served on without eviction warnings, against what docs/controller.md says).
   */
  @Test
  void aKubeconfigFabric8CannotLoadIsRefusedByPlace() throws Exception {
    Path listToken =
        java.nio.file.Files.writeString(
            dir.resolve("list-token"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
                + "users:\n- name: u\n  user: {token: [SECRET-TOKEN]}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    Run r = startWithKubeconfig(listToken);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "webhook-server: KUBECONFIG="
                + listToken
                + ": cannot be read as a kubeconfig at users[0].user.token: a value of the wrong"
                + " type (its content is not shown: it may be a credential)\n");
  }

  /**
   * Fresh eyes (session 41): a kubeconfig whose certificate-authority file is missing said "no
   * eviction warnings: An error has occurred." (fabric8 reads it when it builds the client).
   */
  @Test
  void aMissingCertificateFileIsNamed() throws Exception {
    Path missingCa =
        dev.ironcore.maintenance.testkit.MissingCaKubeconfig.write(dir.resolve("missing-ca"), 6443);
    assertThat(
            serveWithoutEvictionWarnings(
                "missing-ca", env -> env.put("KUBECONFIG", missingCa.toString())))
        .contains(
            "WARN WebhookServerMain - no eviction warnings: KUBECONFIG="
                + missingCa
                + ": cannot build a client of it: no such file "
                + dir.resolve("pki/ca.crt"));
  }

  /**
   * {@code --kubeconfig} (controller-runtime's flag) comes before {@code KUBECONFIG}: with the
   * variable naming no file, the server starts on the flag's file (here one whose CA file is
   * missing, named in the warning); a flag naming no file is refused at start.
   */
  @Test
  void theKubeconfigFlagComesBeforeKubeconfigAndANonexistentOneIsRefused() throws Exception {
    Path missingCa =
        dev.ironcore.maintenance.testkit.MissingCaKubeconfig.write(
            dir.resolve("flag-missing-ca"), 6443);
    assertThat(
            serveWithoutEvictionWarnings(
                "flag",
                env -> env.put("KUBECONFIG", dir.resolve("nonexistent").toString()),
                "--kubeconfig=" + missingCa))
        .contains(
            "WARN WebhookServerMain - no eviction warnings: --kubeconfig="
                + missingCa
                + ": cannot build a client of it: no such file "
                + dir.resolve("pki/ca.crt"));

    Path missing = dir.resolve("missing-kubeconfig");
    TestCertificates certs = TestCertificates.create(dir);
    Run r =
        startAlone(
            java.util.Map.of(),
            "--port=0",
            "--bind-address=127.0.0.1",
            "--tls-cert-file=" + certs.certFile(),
            "--tls-private-key-file=" + certs.keyFile(),
            "--kubeconfig=" + missing);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .startsWith(
            "webhook-server: Invalid value for option '--kubeconfig': no readable kubeconfig file at "
                + missing
                + "\n");
  }

  /**
   * No kubeconfig and not in a pod: the server serves and says once at start that there are no
   * eviction warnings and why, instead of trying https://kubernetes.default.svc/ (which logged "API
   * discovery failed (... An error has occurred.)" 20 s later).
   */
  @Test
  void noClusterMeansNoEvictionWarningsSaidOnceAtStart() throws Exception {
    Path home = java.nio.file.Files.createDirectories(dir.resolve("home"));
    assertThat(
            serveWithoutEvictionWarnings(
                "no-cluster",
                env -> {
                  env.remove("KUBECONFIG");
                  env.remove("KUBERNETES_SERVICE_HOST");
                  env.remove("KUBERNETES_MASTER");
                  env.put("HOME", home.toString());
                }))
        .contains(
            "WARN WebhookServerMain - no eviction warnings: no cluster to talk to: KUBECONFIG is"
                + " unset, "
                + home.resolve(".kube/config")
                + " does not exist and this is not a pod (KUBERNETES_SERVICE_HOST and"
                + " KUBERNETES_SERVICE_PORT are not both set); set KUBECONFIG"
                + " (--no-eviction-warnings turns them off without this line)")
        .doesNotContain("eviction warnings on");
  }

  /**
   * With {@code --log-format=json} the reason a start fails is a JSON log line (as
   * controller-runtime's setupLog.Error), not plain text among JSON lines.
   */
  @Test
  void aStartFailureWithJsonLogsIsOneJsonLine() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    Run r;
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      r =
          startAlone(
              java.util.Map.of(),
              "--port=" + taken.getLocalPort(),
              "--bind-address=127.0.0.1",
              "--log-format=json",
              "--no-eviction-warnings",
              "--tls-cert-file=" + certs.certFile(),
              "--tls-private-key-file=" + certs.keyFile());
    }
    assertThat(r.exitCode()).isEqualTo(1);
    List<String> lines = r.err().lines().toList();
    com.fasterxml.jackson.databind.JsonNode last =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(lines.size() - 1));
    assertThat(last.get("level").asText()).isEqualTo("ERROR");
    assertThat(last.get("logger").asText()).isEqualTo("webhook-server");
    assertThat(last.get("msg").asText())
        .startsWith("cannot start webhook server on 127.0.0.1:")
        .endsWith(": Address already in use");
    for (String line : lines) {
      assertThat(line).as("every line is JSON").startsWith("{");
    }
  }

  private static String[] concat(String[] a, String... b) {
    return java.util.stream.Stream.concat(java.util.Arrays.stream(a), java.util.Arrays.stream(b))
        .toArray(String[]::new);
  }

  @Test
  void anEmptyBindAddressIsAFlagError() {
    Run r =
        run("--validate-flags", "--bind-address=", "--tls-cert-file=c", "--tls-private-key-file=k");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "webhook-server: --bind-address must not be empty (0.0.0.0 listens on every interface,"
                + " 127.0.0.1 on loopback only)\n");
  }

  @Test
  void certificateFlagsAreRequired() {
    Run r = run("--port", "0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--tls-cert-file");
  }

  @Test
  void anEmptyCertificateOrKeyFileNameIsAFlagError() {
    Run cert = run("--validate-flags", "--tls-cert-file", "", "--tls-private-key-file", "k");
    assertThat(cert.exitCode()).isEqualTo(2);
    assertThat(cert.err()).contains("--tls-cert-file must name a file, not be empty");
    Run key = run("--validate-flags", "--tls-cert-file", "c", "--tls-private-key-file", "");
    assertThat(key.exitCode()).isEqualTo(2);
    assertThat(key.err()).contains("--tls-private-key-file must name a file, not be empty");
  }

  @Test
  void unreadableCertificateFailsTheStart() {
    Run r =
        run(
            "--port",
            "0",
            "--tls-cert-file",
            dir.resolve("none.crt").toString(),
            "--tls-private-key-file",
            dir.resolve("none.key").toString());
    assertThat(r.exitCode()).isEqualTo(1);
  }
}

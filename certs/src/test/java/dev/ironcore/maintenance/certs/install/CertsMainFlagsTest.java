package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flag errors of {@code make certs}: one line, exit code 2, before any cluster is asked. */
class CertsMainFlagsTest {
  @TempDir Path dir;

  private record Run(int exitCode, String err) {}

  private static Run run(String... args) {
    return runWith(System.getenv(), args);
  }

  /** As {@link #run} with {@code env} as the whole environment. */
  private static Run runWith(Map<String, String> env, String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        CertsMain.run(
            args,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            env);
    return new Run(code, err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void versionPrintsTheProductVersion() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        CertsMain.run(
            new String[] {"--version"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(dev.ironcore.maintenance.process.VersionInfo.current().line("certs") + "\n");
  }

  /** Fresh eyes (session 46): the flag alone was named, as a range check names VALIDITY too. */
  @Test
  void anUnknownKeyAlgorithmNamesMakesVariable() {
    assertThat(run("--key-algorithm=dsa", "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: Invalid value for option '--key-algorithm': unknown key algorithm 'dsa'"
                    + " (ecdsa or rsa) (KEY_ALGORITHM in make)\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
  }

  /**
   * Fresh eyes (session 51): {@code --secret=Bad_Secret} was refused by the API server at step 3 of
   * 4, after the CA was saved and every caBundle changed; a bad Service or namespace name was
   * reported as a bad {@code --san} entry. Each is refused by its own flag before anything changes.
   */
  @Test
  void badObjectNamesAreRefusedByTheirFlagBeforeAnythingChanges() {
    Path ca = dir.resolve("ca");
    assertThat(run("--secret=Bad_Secret", "--ca-dir=" + ca))
        .isEqualTo(
            new Run(
                2,
                "certs: --secret (CERTS_SECRET): 'Bad_Secret' is not a valid name: must be a"
                    + " lowercase RFC 1123 subdomain: lowercase alphanumeric characters, '-' or"
                    + " '.', starting and ending with an alphanumeric character (e.g."
                    + " 'example.com')\n"));
    assertThat(run("--service=My_Svc", "--ca-dir=" + ca).err())
        .startsWith("certs: --service (CERTS_SERVICE): 'My_Svc' is not a valid name: must be a")
        .doesNotContain("--san");
    assertThat(run("--service=1svc", "--ca-dir=" + ca).err())
        .contains("'1svc' is not a valid name: must be a lowercase RFC 1035 label");
    assertThat(run("--namespace=Bad_NS", "--ca-dir=" + ca).err())
        .startsWith(
            "certs: --namespace (CERTS_NAMESPACE): 'Bad_NS' is not a valid name: must be a"
                + " lowercase RFC 1123 label")
        .doesNotContain("--san");
    assertThat(run("--namespace=a.b", "--ca-dir=" + ca).err()).contains("RFC 1123 label");
    assertThat(run("--namespace=" + "n".repeat(64), "--ca-dir=" + ca).err())
        .contains("must be no more than 63 characters");
    assertThat(run("--webhook-configuration=x y", "--ca-dir=" + ca).err())
        .startsWith(
            "certs: --webhook-configuration (WEBHOOK_CONFIGURATION): 'x y' is not a valid name");
    assertThat(run("--crds=machines.compute.ironcore.dev, Bad_CRD", "--ca-dir=" + ca).err())
        .startsWith("certs: --crds (CRDS): 'Bad_CRD' is not a valid name");
    assertThat(ca).doesNotExist();
  }

  @Test
  void aMissingKubeconfigFileIsNamed() {
    Path missing = dir.resolve("nonexistent");
    assertThat(run("--kubeconfig=" + missing, "--ca-dir=" + dir))
        .isEqualTo(
            new Run(
                2,
                "certs: --kubeconfig: no readable kubeconfig file at "
                    + missing
                    + " (it does not exist)\n"));
  }

  /**
   * A kubeconfig whose context names a cluster it does not have, or whose current-context is not in
   * it: fabric8 would act on {@code https://kubernetes.default.svc/}; refused naming the file.
   */
  @Test
  void aKubeconfigWhoseCurrentContextCannotBeUsedIsNamed() throws Exception {
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            "apiVersion: v1\nkind: Config\n"
                + "contexts: [{name: x, context: {cluster: gone}}]\ncurrent-context: x\n");
    assertThat(run("--kubeconfig=" + kubeconfig, "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: --kubeconfig: kubeconfig "
                    + kubeconfig
                    + ": context \"x\" names cluster \"gone\", which is not in the file\n"));
    Path typo =
        Files.writeString(
            dir.resolve("typo"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                + "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: foo\n");
    assertThat(runWith(Map.of("KUBECONFIG", typo.toString()), "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: KUBECONFIG="
                    + typo
                    + ": current-context \"foo\" is not a context of the file\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
    // fresh eyes (session 40): a private key named by KUBECONFIG was quoted in the error
    Path key =
        Files.writeString(
            dir.resolve("tls.key"),
            "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEISECRET\n-----END EC PRIVATE KEY-----\n");
    assertThat(runWith(Map.of("KUBECONFIG", key.toString()), "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: KUBECONFIG="
                    + key
                    + ": the file is not a kubeconfig: it holds a text, not a mapping of clusters,"
                    + " contexts and users (its content is not shown: it may be a credential)\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
    // review (session 41): a file the check passes and fabric8's parser refuses, as a flag error
    // of --kubeconfig like the check's (it was "certs: kubeconfig ...", exit 1)
    Path listToken =
        Files.writeString(
            dir.resolve("list-token"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
                + "users:\n- name: u\n  user: {token: [SECRET-TOKEN]}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    assertThat(run("--kubeconfig=" + listToken, "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: --kubeconfig: kubeconfig "
                    + listToken
                    + ": cannot be read as a kubeconfig at users[0].user.token: a value of the"
                    + " wrong type (its content is not shown: it may be a credential)\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
    // fresh eyes (session 41): a missing certificate-authority file said "cluster: An error has
    // occurred."
    Path missingCa =
        Files.writeString(
            dir.resolve("missing-ca"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443',"
                + " certificate-authority: pki/ca.crt}\n"
                + "users:\n- name: u\n  user: {token: t}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    assertThat(run("--kubeconfig=" + missingCa, "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                1,
                "certs: --kubeconfig: kubeconfig "
                    + missingCa
                    + ": cannot build a client of it: no such file "
                    + dir.resolve("pki/ca.crt")
                    + " (nothing changed)\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
  }

  /**
   * Two kubeconfig files that reach one API server (make certs' IRONCORE_KUBECONFIG naming the
   * cluster of KUBECONFIG through another file): refused before anything is asked or written; the
   * Secret and the caBundles would be written twice.
   */
  @Test
  void twoKubeconfigsOfOneApiServerAreRefused() throws Exception {
    String body =
        "apiVersion: v1\nkind: Config\n"
            + "clusters: [{name: c, cluster: {server: '%s'}}]\n"
            + "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n";
    Path capi = Files.writeString(dir.resolve("capi"), body.formatted("https://127.0.0.1:1"));
    Path ironcore =
        Files.writeString(dir.resolve("ironcore"), body.formatted("https://127.0.0.1:1/"));
    Path other = Files.writeString(dir.resolve("other"), body.formatted("https://127.0.0.1:2"));
    assertThat(
            run(
                "--kubeconfig=" + capi,
                "--kubeconfig=" + ironcore,
                "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: --kubeconfig: "
                    + capi
                    + " and "
                    + ironcore
                    + " both reach the API server https://127.0.0.1:1/: give one kubeconfig per"
                    + " cluster (make certs: leave IRONCORE_KUBECONFIG out when the IronCore API is"
                    + " served by the cluster of KUBECONFIG)\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
    assertThat(CertsMain.sameApiServer(java.util.List.of(capi, other))).isEmpty();
  }

  /** Two runs on one CA directory at once: the second is refused before it asks any cluster. */
  @Test
  void aSecondRunOnTheSameCaDirectoryIsRefusedWhileTheFirstHoldsIt() throws Exception {
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                + "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n");
    Path caDir = dir.resolve("ca");
    try (CaDirLock held = CaDirLock.acquire(caDir)) {
      assertThat(run("--kubeconfig=" + kubeconfig, "--ca-dir=" + caDir))
          .isEqualTo(
              new Run(
                  1,
                  "certs: another make certs or make rotate-certs is working with the CA"
                      + " directory "
                      + caDir
                      + " (it holds "
                      + dir.resolve("ca.lock")
                      + "); wait until it is done, then run again (nothing changed)\n"));
      assertThat(run("--kubeconfig=" + kubeconfig, "--ca-dir=" + caDir, "--dry-run").err())
          .as("a plan needs no lock")
          .doesNotContain("another make certs");
    }
    assertThat(run("--kubeconfig=" + kubeconfig, "--ca-dir=" + caDir).err())
        .as("released: on to the cluster")
        .doesNotContain("another make certs")
        .contains("127.0.0.1:1");
  }

  /**
   * A kubeconfig naming its certificate files by relative paths: resolved against the file's
   * directory as kubectl does (read as text, fabric8 resolved them against the working directory).
   */
  @Test
  void relativePathsInAKubeconfigAreResolvedAgainstItsDirectory() throws Exception {
    Path kubeconfig =
        Files.writeString(
            Files.createDirectories(dir.resolve("elsewhere")).resolve("kubeconfig"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1',"
                + " certificate-authority: pki/ca.crt}}]\n"
                + "users: [{name: u, user: {client-certificate: pki/admin.crt,"
                + " client-key: pki/admin.key}}]\n"
                + "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n");
    io.fabric8.kubernetes.client.Config config = CertsMain.config(kubeconfig);
    Path pki = dir.resolve("elsewhere/pki");
    assertThat(Path.of(config.getCaCertFile())).isEqualTo(pki.resolve("ca.crt"));
    assertThat(Path.of(config.getClientCertFile())).isEqualTo(pki.resolve("admin.crt"));
    assertThat(Path.of(config.getClientKeyFile())).isEqualTo(pki.resolve("admin.key"));
  }

  /**
   * No kubeconfig and not in a pod: one line, before a CA is made (fabric8 would try
   * kubernetes.default.svc).
   */
  @Test
  void noClusterIsRefusedBeforeAnythingIsWritten() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    assertThat(runWith(Map.of("HOME", home.toString()), "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: no cluster to talk to: KUBECONFIG is unset, "
                    + home.resolve(".kube/config")
                    + " does not exist and this is not a pod (KUBERNETES_SERVICE_HOST and"
                    + " KUBERNETES_SERVICE_PORT are not both set); set KUBECONFIG\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
  }

  @Test
  void zeroDurationsAreRefused() {
    assertThat(run("--validity=0", "--ca-dir=" + dir))
        .isEqualTo(new Run(2, "certs: --validity (VALIDITY) must be more than 0, got 0s\n"));
  }

  /**
   * Fresh eyes (session 35): VALIDITY=5s rotated to a certificate expired by the end of the run; a
   * CA_VALIDITY of 1h then left no serving certificate of 1h room under it.
   */
  @Test
  void lifetimesUnderTheirMinimumAreRefused() {
    String down =
        "(a certificate expiring during or right after the rotation takes the webhooks down";
    for (String[] value : new String[][] {{"5s", "5s"}, {"30m", "30m0s"}, {"59m59s", "59m59s"}}) {
      assertThat(run("--validity=" + value[0], "--ca-dir=" + dir))
          .isEqualTo(
              new Run(
                  2,
                  "certs: --validity (VALIDITY) must be at least 1h "
                      + down
                      + "), got "
                      + value[1]
                      + "\n"));
    }
    for (String[] value : new String[][] {{"1h", "1h0m0s"}, {"1h59m59s", "1h59m59s"}}) {
      assertThat(run("--ca-validity=" + value[0], "--ca-dir=" + dir))
          .isEqualTo(
              new Run(
                  2,
                  "certs: --ca-validity (CA_VALIDITY) must be at least 2h "
                      + down
                      + "; a CA outlives the serving certificates it issues, at least 1h each), got "
                      + value[1]
                      + "\n"));
    }
    assertThat(dir.resolve("ca")).doesNotExist();
  }

  @Test
  void dryRunOtherThanTrueOrFalseIsRefusedBeforeAnyClusterIsAsked() throws Exception {
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), "not: a cluster\n");
    for (String value : new String[] {"yes", "1"}) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          CertsMain.run(
              new String[] {"--kubeconfig=" + kubeconfig, "--ca-dir=" + dir.resolve("ca")},
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8),
              Map.of("DRY_RUN", value));
      assertThat(new Run(code, err.toString(StandardCharsets.UTF_8)))
          .isEqualTo(
              new Run(
                  2,
                  "certs: DRY_RUN='" + value + "': use true or false (or leave DRY_RUN empty)\n"));
    }
    assertThat(dir.resolve("ca")).doesNotExist();
  }

  @Test
  void anInvalidSanIsAFlagErrorBeforeAnythingIsWritten() {
    Path ca = dir.resolve("ca");
    assertThat(run("--san=ok.example.com", "--san=1.2.3.999", "--ca-dir=" + ca))
        .isEqualTo(
            new Run(
                2,
                "certs: SANS (--san) entry '1.2.3.999': not a valid IP address"
                    + " (IPv4 as 10.0.0.1, IPv6 as fd00::1)\n"));
    assertThat(run("--san=*.*.bad", "--ca-dir=" + ca).err()).contains("'*.*.bad'");
    assertThat(ca).doesNotExist();
  }

  /** Fresh eyes (session 37): {@code SANS=','} issued nothing and failed later, with exit 1. */
  @Test
  void sansOfEmptyEntriesOnlyAreAFlagError() {
    Path ca = dir.resolve("ca");
    assertThat(run("--san=", "--san= ", "--ca-dir=" + ca))
        .isEqualTo(
            new Run(
                2,
                "certs: SANS (--san) names no DNS name or IP address (only empty entries); leave"
                    + " SANS unset for the defaults\n"));
    assertThat(ca).doesNotExist();
  }

  /** Fresh eyes (session 37): {@code WAIT_TIMEOUT=5s} was accepted, under the 10 s reload. */
  @Test
  void aWaitTimeoutUnderTheReloadIntervalIsAFlagError() {
    assertThat(run("--wait-timeout=9s", "--ca-dir=" + dir.resolve("ca")))
        .isEqualTo(
            new Run(
                2,
                "certs: --wait-timeout (WAIT_TIMEOUT) must be at least 10s (the webhook server"
                    + " re-reads its pair every 10 s; in a cluster the kubelet first refreshes the"
                    + " mounted Secret, within about a minute), got 9s\n"));
    assertThat(dir.resolve("ca")).doesNotExist();
  }

  @Test
  void aLaterValueWins() {
    Path missing = dir.resolve("later");
    assertThat(run("--ca-dir=/elsewhere", "--ca-dir=" + dir, "--kubeconfig=" + missing).err())
        .contains("later");
  }
}

package dev.ironcore.maintenance.devtools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make certs} ({@code hack/certs.sh}, the real script, copied into a scratch checkout) with
 * a {@code KUBECONFIG} list: what it refuses before anything is built or asked, using the control
 * plane's kubectl to merge the files.
 */
class CertsScriptTest {
  @TempDir Path checkout;

  /**
   * Fresh eyes (session 40): a list with one file that is not a kubeconfig (a token) beside a good
   * one was refused as "no current-context is set in any of its files", which was untrue and did
   * not name the file; kubectl's own reason (naming the file, not quoting it) is passed on.
   */
  @Test
  void aListWithAFileKubectlCannotReadNamesThatFile() throws Exception {
    Path repo = ManifestPaths.overlay("local").getParent().getParent();
    Files.createDirectories(checkout.resolve("hack"));
    Files.copy(repo.resolve("hack/certs.sh"), checkout.resolve("hack/certs.sh"));
    Path token = Files.writeString(checkout.resolve("token"), "eyJhbGciOiJSUzI1NiJ9.SECRET");
    Path good =
        Files.writeString(
            checkout.resolve("good"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                + "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n");
    Path none = Files.writeString(checkout.resolve("none"), "apiVersion: v1\nkind: Config\n");
    assertThat(run(token + ":" + good))
        .startsWith("certs: KUBECONFIG " + token + ":" + good + ": kubectl cannot read it: ")
        .contains("\"" + token + "\"")
        .doesNotContain("SECRET");
    assertThat(run(none + ":" + none))
        .isEqualTo(
            "certs: KUBECONFIG "
                + none
                + ":"
                + none
                + ": no current-context is set in any of its files\n");
  }

  /**
   * Fresh eyes (session 49): {@code hack/certs.sh rotate --help} dropped {@code --help} and began a
   * real rotation. Anything after the action is refused before anything is built or asked.
   */
  @Test
  void anArgumentAfterTheActionIsRefusedNotDropped() throws Exception {
    Path repo = ManifestPaths.overlay("local").getParent().getParent();
    Files.createDirectories(checkout.resolve("hack"));
    Files.copy(repo.resolve("hack/certs.sh"), checkout.resolve("hack/certs.sh"));
    String script = checkout.resolve("hack/certs.sh").toString();
    assertThat(run("/nonexistent", "rotate", "--help"))
        .isEqualTo(
            "certs: unexpected argument(s) after "
                + script
                + " rotate: --help; pass flags in CERTS_ARGS, e.g. CERTS_ARGS='--help' "
                + script
                + " rotate\n");
    assertThat(run("/nonexistent", "ensure", "--bogus", "x")).contains("ensure: --bogus x;");
  }

  /**
   * Fresh eyes (session 50): a copy of make run's kubeconfig took the cluster-install path, wrote a
   * Secret no server reads and then waited in vain for the server to present it. A kubeconfig that
   * names make run's API server is refused, saying which kubeconfig to use.
   */
  @Test
  void aCopyOfMakeRunsKubeconfigIsRefusedNamingTheOneToUse() throws Exception {
    Path repo = ManifestPaths.overlay("local").getParent().getParent();
    Files.createDirectories(checkout.resolve("hack"));
    Files.copy(repo.resolve("hack/certs.sh"), checkout.resolve("hack/certs.sh"));
    String kubeconfig =
        "apiVersion: v1\nkind: Config\n"
            + "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
            + "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n";
    Files.createDirectories(checkout.resolve(".local"));
    Files.writeString(checkout.resolve(".local/kubeconfig"), kubeconfig);
    Path copy = Files.writeString(checkout.resolve("cluster.kubeconfig"), kubeconfig);
    // make run holds .local/run.lock while it runs
    Process makeRun = holdingTheLock(checkout, 60).start();
    try {
      await().atMost(java.time.Duration.ofSeconds(10)).until(() -> locked(checkout));
      assertThat(run(copy.toString()))
          .isEqualTo(
              "certs: KUBECONFIG "
                  + copy
                  + " talks to make run's API server (https://127.0.0.1:1, as .local/kubeconfig"
                  + " does), whose serving pair is in files, not a Secret: run without KUBECONFIG"
                  + " (or with KUBECONFIG=.local/kubeconfig); nothing changed\n");
    } finally {
      makeRun.destroy();
      makeRun.waitFor();
    }
    // make run stopped (its kubeconfig stays): a cluster install, which fails at the build here
    assertThat(run(1, copy.toString(), "ensure"))
        .doesNotContain("make run's API server")
        .contains("certs: the Maven build failed");
    // another API server is a cluster install (which then fails at the build, MVN=false)
    Path other =
        Files.writeString(
            checkout.resolve("other.kubeconfig"), kubeconfig.replace("127.0.0.1:1", "127.0.0.1:2"));
    assertThat(run(1, other.toString(), "ensure"))
        .doesNotContain("make run's API server")
        .contains("certs: the Maven build failed");
  }

  /**
   * A process that holds {@code .local/run.lock} as make run does, for {@code seconds}: one process
   * (the lock's descriptor passed on by exec), so that destroying it frees the lock.
   */
  static ProcessBuilder holdingTheLock(Path checkout, int seconds) {
    return new ProcessBuilder(
        "bash",
        "-c",
        "exec 9>>\"$1\" && flock 9 && exec sleep " + seconds,
        "hold",
        checkout.resolve(".local/run.lock").toString());
  }

  /** Whether something holds {@code .local/run.lock}, as make run does. */
  static boolean locked(Path checkout) throws Exception {
    Path lock = checkout.resolve(".local/run.lock");
    if (!Files.exists(lock)) {
      return false;
    }
    Process p = new ProcessBuilder("flock", "-n", lock.toString(), "true").start();
    return p.waitFor() != 0;
  }

  private String run(String kubeconfig) throws Exception {
    return run(kubeconfig, "ensure");
  }

  private String run(String kubeconfig, String... args) throws Exception {
    return run(2, kubeconfig, args);
  }

  private String run(int exit, String kubeconfig, String... args) throws Exception {
    String bin = System.getProperty(SharedControlPlane.BIN_DIR_PROPERTY);
    java.util.List<String> command = new java.util.ArrayList<>();
    command.add("bash");
    command.add(checkout.resolve("hack/certs.sh").toString());
    command.addAll(java.util.List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("KUBECONFIG", kubeconfig);
    pb.environment().put("DRY_RUN", "true");
    pb.environment().put("MVN", "false"); // never build, should the script get that far
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(exit);
    return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}

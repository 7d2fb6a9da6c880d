package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller process with {@code KUBECONFIG} naming a file that does not exist, or a file whose
 * current-context is not in it: the client would silently fall back to the in-cluster service
 * account or {@code https://kubernetes.default.svc/} (and retry forever outside a pod); the process
 * refuses at once with one line naming the file and exit code 2.
 */
class MissingKubeconfigTest {
  @TempDir Path dir;

  @Test
  void aMissingKubeconfigFileIsRefusedWithOneLine() throws Exception {
    Path log = dir.resolve("controller.log");
    Path missing = dir.resolve("nonexistent");
    try (ControllerProcess controller = ControllerProcess.start(missing, log)) {
      Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> !controller.alive());
      assertThat(controller.terminate()).isEqualTo(2);
    }
    assertThat(Files.readString(log))
        .isEqualTo(
            "ironcore-maintenance-controller: KUBECONFIG names "
                + missing
                + ", which does not exist (fix or unset KUBECONFIG; unset, the client uses"
                + " ~/.kube/config or the in-cluster service account)\n");
  }

  @Test
  void aCurrentContextThatIsNotInTheKubeconfigIsRefusedWithOneLine() throws Exception {
    Path log = dir.resolve("context.log");
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                + "    server: https://127.0.0.1:1\n"
                + "users:\n- name: u\n  user: {token: t}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                + "current-context: foo\n");
    try (ControllerProcess controller = ControllerProcess.start(kubeconfig, log)) {
      Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> !controller.alive());
      assertThat(controller.terminate()).isEqualTo(2);
    }
    assertThat(Files.readString(log))
        .isEqualTo(
            "ironcore-maintenance-controller: KUBECONFIG="
                + kubeconfig
                + ": current-context \"foo\" is not a context of the file\n");
  }

  /**
   * No KUBECONFIG, no ~/.kube/config and not in a pod: fabric8 would try
   * https://kubernetes.default.svc/ and fail after 20 s with "cannot connect"; refused at once.
   */
  @Test
  void noKubeconfigOutsideAPodIsRefusedWithOneLine() throws Exception {
    Path log = dir.resolve("none.log");
    Path home = Files.createDirectories(dir.resolve("home"));
    java.util.Map<String, String> env =
        java.util.Map.of(
            "KUBECONFIG", "",
            "HOME", home.toString(),
            "KUBERNETES_SERVICE_HOST", "",
            "KUBERNETES_MASTER", "");
    try (ControllerProcess controller = ControllerProcess.start(Path.of(""), log, env)) {
      Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> !controller.alive());
      assertThat(controller.terminate()).isEqualTo(2);
    }
    assertThat(Files.readString(log))
        .isEqualTo(
            "ironcore-maintenance-controller: no cluster to talk to: KUBECONFIG is empty, "
                + home.resolve(".kube/config")
                + " does not exist and this is not a pod (KUBERNETES_SERVICE_HOST and"
                + " KUBERNETES_SERVICE_PORT are not both set); set KUBECONFIG\n");
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller process with {@code KUBECONFIG} naming a file that does not exist: the client
 * would silently fall back to the in-cluster service account (and retry forever outside a pod); the
 * process refuses at once with one line naming the file and exit code 2.
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
}

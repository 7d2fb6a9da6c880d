package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --leader-elect} with a {@code --leader-election-namespace} that does not exist on the real
 * API server: fabric8's elector would fail on every attempt for ever (a WARN with a stack trace
 * every 2 s, {@code /readyz} saying only that caches are not synced); the process refuses at once
 * with one line naming the flag and the API server's message, exit code 1.
 */
class LeaderElectionNamespaceTest {
  @TempDir Path dir;

  @Test
  void aLeaderElectionNamespaceThatDoesNotExistIsOneLineAndExitCode1() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path log = dir.resolve("controller.log");
    String missing = "nope-" + world.suffix;
    try (ControllerProcess controller =
        ControllerProcess.start(
            world.cp.kubeconfig(),
            log,
            Map.of("POD_NAME", "ctl-z"),
            "--leader-elect",
            "--leader-election-namespace=" + missing)) {
      Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> !controller.alive());
      assertThat(controller.terminate()).isEqualTo(1);
    }
    String text = Files.readString(log);
    assertThat(text)
        .contains(
            "ironcore-maintenance-controller: --leader-election-namespace="
                + missing
                + ": cannot write Lease ironcore-maintenance-controller there: namespaces \""
                + missing
                + "\" not found")
        .doesNotContain("LeaderElector");
    assertThat(world.client.namespaces().withName(missing).get()).as("nothing created").isNull();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two controller processes with {@code --leader-elect}: one runs the loops; when it is killed, the
 * other takes over.
 */
class LeaderElectionE2ETest {
  private ControllerProcess a;
  private ControllerProcess b;

  @AfterEach
  void stop() throws Exception {
    for (ControllerProcess p : new ControllerProcess[] {a, b}) {
      if (p != null) {
        p.close();
      }
    }
  }

  private static boolean logSays(Path log, String text) throws Exception {
    return Files.exists(log) && Files.readString(log).contains(text);
  }

  @Test
  void onlyTheLeaderReconcilesAndAStandbyTakesOverWhenItDies() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "leader-election"));
    Path logA = dir.resolve(world.ns + "-a.log");
    Path logB = dir.resolve(world.ns + "-b.log");
    String[] common = {
      "--leader-elect", "--leader-election-namespace=" + world.ns, "--resync-period=5s"
    };

    a =
        ControllerProcess.start(
            world.cp.kubeconfig(), logA, concat(common, "--leader-election-id=a"));
    await().atMost(Duration.ofSeconds(60)).until(() -> logSays(logA, "controller started"));
    b =
        ControllerProcess.start(
            world.cp.kubeconfig(), logB, concat(common, "--leader-election-id=b"));
    await().atMost(Duration.ofSeconds(60)).until(() -> logSays(logB, "current leader is a"));

    world.createCapiMachine("first", null, Map.of());
    await().atMost(Duration.ofSeconds(30)).until(() -> hasHook(world.capiMachine("first")));
    assertThat(Files.readString(logB))
        .as("the standby does not run the loops")
        .doesNotContain("controller started");

    a.kill();
    await().atMost(Duration.ofSeconds(60)).until(() -> logSays(logB, "controller started"));
    world.createCapiMachine("second", null, Map.of());
    await().atMost(Duration.ofSeconds(30)).until(() -> hasHook(world.capiMachine("second")));
  }

  private static String[] concat(String[] a, String b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + 1);
    out[a.length] = b;
    return out;
  }
}

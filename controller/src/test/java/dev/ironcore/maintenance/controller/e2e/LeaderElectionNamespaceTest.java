package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.controller.LeaderElection;
import dev.ironcore.maintenance.process.Cli;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
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
    // the line is the API server's reason alone: fabric8's "Failure executing: POST ... Received
    // status: Status(apiVersion=v1, code=404, ...)" used to follow it
    assertThat(text.lines().filter(l -> l.startsWith("ironcore-maintenance-controller: ")))
        .containsExactly(
            "ironcore-maintenance-controller: --leader-election-namespace="
                + missing
                + ": cannot write Lease ironcore-maintenance-controller there: namespaces \""
                + missing
                + "\" not found");
    assertThat(text).doesNotContain("LeaderElector", "Failure executing", "Status(");
    assertThat(world.client.namespaces().withName(missing).get()).as("nothing created").isNull();
  }

  /**
   * The same check at the function, on the real API server: a 404 and a 403 (a user without RBAC)
   * are each the API server's message after the flag and the Lease, nothing of fabric8's.
   */
  @Test
  void theReasonIsTheApiServersMessageAloneFor404And403() throws Exception {
    ControllerWorld world = new ControllerWorld();
    String missing = "nope-" + world.suffix;
    String lease = "probe-" + world.suffix;
    assertThatThrownBy(() -> LeaderElection.checkLeaseCanBeWritten(world.client, missing, lease))
        .isInstanceOf(IllegalStateException.class)
        .satisfies(
            e ->
                assertThat(Cli.reason(e))
                    .isEqualTo(
                        "--leader-election-namespace="
                            + missing
                            + ": cannot write Lease "
                            + lease
                            + " there: namespaces \""
                            + missing
                            + "\" not found"));

    Config config = Config.fromKubeconfig(Files.readString(world.cp.kubeconfig()));
    config.setImpersonateUsername("no-rbac-" + world.suffix);
    try (KubernetesClient nobody = JsonMappers.client(config)) {
      assertThatThrownBy(() -> LeaderElection.checkLeaseCanBeWritten(nobody, world.ns, lease))
          .isInstanceOf(IllegalStateException.class)
          .satisfies(
              e ->
                  assertThat(Cli.reason(e))
                      .isEqualTo(
                          "--leader-election-namespace="
                              + world.ns
                              + ": cannot write Lease "
                              + lease
                              + " there: leases.coordination.k8s.io is forbidden: User \"no-rbac-"
                              + world.suffix
                              + "\" cannot create resource \"leases\" in API group"
                              + " \"coordination.k8s.io\" in the namespace \""
                              + world.ns
                              + "\""));
    }
  }
}

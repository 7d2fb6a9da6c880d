package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM, as the kubelet sends on pod deletion: the leading controller stops its loops, releases
 * its Lease (a successor need not wait for it to expire), closes the client and exits 0.
 */
class CleanStopE2ETest {
  /** The Lease's name ({@code --leader-election-id}). */
  private static final String LEASE = "clean-stop";

  private ControllerProcess controller;

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
  }

  @Test
  void sigtermReleasesTheLeaseAndExitsZero() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path log = Files.createDirectories(Path.of("target", "clean-stop")).resolve(world.ns + ".log");
    controller =
        ControllerProcess.start(
            // the cluster as --kubeconfig (controller-runtime's flag): KUBECONFIG names no file,
            // which the start would refuse were the flag not taken first
            log.resolveSibling("no-such-kubeconfig"),
            log,
            "--kubeconfig=" + world.cp.kubeconfig(),
            "--leader-elect",
            "--leader-election-namespace=" + world.ns,
            "--leader-election-id=" + LEASE);
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> holder(world) != null && controller.probe("/readyz") == 200);

    assertThat(controller.terminate()).isZero();

    // fabric8 releases as a 1 s lease renewed now (the holder name stays): a successor takes over
    // within a second instead of waiting out the 15 s lease
    Lease released = lease(world);
    assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
    String text = Files.readString(log);
    assertThat(text).contains("released the lease").contains("controller stopped");
    assertThat(text).doesNotContain("lost the lease");
  }

  /**
   * SIGTERM while the API server cannot be reached (make run stopping its control plane, a node cut
   * off): fabric8's release retried for about 40 s, past a pod's 30 s grace period, and the log
   * then said the lease was released. The stop waits 5 s for the release, says it did not happen,
   * and exits 0 well inside the grace period.
   */
  @Test
  void sigtermWithTheApiServerGoneStopsInsideTheGracePeriodAndSaysTheLeaseWasNotReleased()
      throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "clean-stop", world.ns + "-gone"));
    try (var proxy =
        dev.ironcore.maintenance.testkit.faults.FaultProxy.start(world.cp.kubeconfig(), dir)) {
      controller =
          ControllerProcess.start(
              proxy.kubeconfig(),
              dir.resolve("controller.log"),
              "--leader-elect",
              "--leader-election-namespace=" + world.ns,
              "--leader-election-id=" + LEASE);
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> holder(world) != null && controller.probe("/readyz") == 200);
      proxy.close(); // connections refused from now on
    }
    long start = System.nanoTime();
    int exit = controller.terminate();
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(exit).isZero();
    assertThat(took).as("inside a pod's 30 s grace period").isLessThan(Duration.ofSeconds(30));
    String text = Files.readString(dir.resolve("controller.log"));
    assertThat(text)
        .containsAnyOf(
            "the API server did not take the Lease's release within 5 s; it expires on its own",
            "stepped down without releasing the lease")
        .doesNotContain("released the lease")
        .contains("controller stopped");
  }

  /**
   * SIGTERM while the new leader waits for its caches (fresh eyes: within about 0.5 s of winning
   * the Lease, 2 of 10 stops exited 1, "informer manually stopped before starting", and the Lease
   * stayed held until it expired). The Machines' list hangs here, so the start is sure to be
   * waiting when the signal comes; the stop cuts it short, releases the Lease and exits 0.
   */
  @Test
  void sigtermWhileTheNewLeaderWaitsForItsCachesReleasesTheLeaseAndExitsZero() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "clean-stop", world.ns + "-starting"));
    Path log = dir.resolve("controller.log");
    try (var proxy =
        startBehindFrozenPath(world, dir, "/apis/compute.ironcore.dev/v1alpha2/machines")) {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> holder(world) != null && Files.readString(log).contains(" leads ("));
      Thread.sleep(500); // past the informers' start, into the wait for their lists
      assertThat(controller.probe("/readyz"))
          .as("not synced: the Machines' list hangs")
          .isNotEqualTo(200);

      assertThat(controller.terminate()).isZero();
    }
    assertThat(lease(world).getSpec().getLeaseDurationSeconds())
        .as("released: a successor takes over within a second")
        .isEqualTo(1);
    String text = Files.readString(log);
    assertThat(text)
        .contains("controller start cut short by the stop")
        .doesNotContain("controller started:")
        .contains("released the lease")
        .contains("controller stopped")
        .doesNotContain("lost the lease")
        .doesNotContain("informer manually stopped");
  }

  /**
   * SIGTERM while the start's Lease check waits for an API server that does not answer (fresh eyes:
   * the stop waited 40 s for it, then the process took the Lease anyway): the stop does not wait
   * for it, and the process never takes part in the election.
   */
  @Test
  void sigtermWhileTheLeaseCheckWaitsStopsAtOnceAndNeverTakesTheLease() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "clean-stop", world.ns + "-check"));
    Path log = dir.resolve("controller.log");
    try (var proxy =
        startBehindFrozenPath(world, dir, "/apis/coordination.k8s.io/v1/namespaces/" + world.ns)) {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> Files.readString(log).contains("and leader election: https://"));
      Thread.sleep(500); // into the check's request, which the proxy holds

      long start = System.nanoTime();
      assertThat(controller.terminate()).isZero();
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("not held by the request")
          .isLessThan(Duration.ofSeconds(10));
    }
    assertThat(lease(world)).as("never taken").isNull();
    assertThat(Files.readString(log))
        .contains("controller stopping before it took part in leader election")
        .contains("controller stopped")
        .doesNotContain(" leads (");
  }

  /**
   * Starts the controller, leader-elected, behind a fault proxy that holds every request to {@code
   * path} (2 min); its log is {@code dir/controller.log}.
   */
  private dev.ironcore.maintenance.testkit.faults.FaultProxy startBehindFrozenPath(
      ControllerWorld world, Path dir, String path) throws java.io.IOException {
    var proxy =
        dev.ironcore.maintenance.testkit.faults.FaultProxy.start(world.cp.kubeconfig(), dir);
    proxy.freeze(Duration.ofMinutes(2), path);
    controller =
        ControllerProcess.start(
            proxy.kubeconfig(),
            dir.resolve("controller.log"),
            "--leader-elect",
            "--leader-election-namespace=" + world.ns,
            "--leader-election-id=" + LEASE);
    return proxy;
  }

  private static Lease lease(ControllerWorld world) {
    return world.client.leases().inNamespace(world.ns).withName(LEASE).get();
  }

  private static String holder(ControllerWorld world) {
    Lease lease = lease(world);
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }
}

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
            world.cp.kubeconfig(),
            log,
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

  private static Lease lease(ControllerWorld world) {
    return world.client.leases().inNamespace(world.ns).withName(LEASE).get();
  }

  private static String holder(ControllerWorld world) {
    Lease lease = lease(world);
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }
}

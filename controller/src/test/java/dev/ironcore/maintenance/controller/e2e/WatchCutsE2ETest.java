package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.faults.FaultProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A 100-pool drain while a proxy between the controller and the API server cuts every open watch
 * connection every 2.5 s ({@link FaultProxy#cutWatches()}), from before the controller's first list
 * until every drain is done: each drain still completes in order, with every event of the flow
 * ({@link FleetUnderFaults}), and the process keeps running.
 */
class WatchCutsE2ETest {
  private static final int POOLS = 100;

  private final ScheduledExecutorService cutter = Executors.newSingleThreadScheduledExecutor();
  private FaultProxy proxy;
  private ControllerProcess controller;
  private FleetUnderFaults fleet;

  @AfterEach
  void stop() throws Exception {
    cutter.shutdownNow();
    if (fleet != null) {
      fleet.close();
    }
    if (controller != null) {
      controller.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void aHundredPoolDrainCompletesWhileEveryWatchIsCutEveryFewSeconds() throws Exception {
    ControllerWorld world = new ControllerWorld();
    fleet = FleetUnderFaults.create(world, POOLS, 2);
    Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns));
    proxy = FaultProxy.start(world.cp.kubeconfig(), dir);
    cutter.scheduleWithFixedDelay(proxy::cutWatches, 2500, 2500, TimeUnit.MILLISECONDS);
    controller =
        ControllerProcess.start(
            proxy.kubeconfig(),
            dir.resolve("controller.log"),
            "--workers=4",
            // no poollet renews these pools' Leases: keep the health loop from marking all 100
            // Unknown mid-drain (a pool status write racing the drain's Maintenance write)
            "--machine-pool-lifecycle-grace-period=10m");

    ControllerWorld.processStarts().until(fleet::allManaged);
    fleet.startActing();
    fleet.deleteAllCapiMachines();
    fleet.awaitAllDrained(Duration.ofMinutes(4));
    cutter.shutdownNow();

    assertThat(controller.alive()).as("the controller never exits").isTrue();
    fleet.assertInvariants();
    long cuts = proxy.counters().watchesCut();
    assertThat(cuts).as("watches cut: %s", proxy.counters()).isGreaterThanOrEqualTo(12);
    assertThat(proxy.counters().watchesOpened())
        .as("every cut watch was opened again")
        .isGreaterThan(cuts);
    ControllerWorld.eventually()
        .atMost(Duration.ofSeconds(60))
        .until(() -> controller.probe("/readyz") == 200 && controller.probe("/healthz") == 200);
    org.slf4j.LoggerFactory.getLogger(WatchCutsE2ETest.class).info("controller ready");
    System.out.println("WatchCutsE2ETest: " + POOLS + " pools drained; proxy " + proxy.counters());
  }
}

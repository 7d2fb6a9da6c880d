package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.faults.FaultProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API server answers 429 Too Many Requests (with {@code Retry-After}) or 500 Internal Server
 * Error to every request of the controller for 12 s, through a proxy ({@link FaultProxy}): at
 * start-up, and twice in the middle of drains (each storm also cuts the open watches, so the
 * informers reconnect into the errors). The controller backs off and finishes every drain with the
 * invariants of {@link FleetUnderFaults}; it never exits.
 */
class ApiServerErrorsE2ETest {
  private static final Duration STORM = Duration.ofSeconds(12);

  private FaultProxy proxy;
  private ControllerProcess controller;
  private FleetUnderFaults fleet;

  @AfterEach
  void stop() throws Exception {
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

  private void storm(int status) {
    proxy.failWith(status, STORM);
    proxy.cutWatches();
  }

  @Test
  void drainsCompleteThroughStormsOf429And500AtStartUpAndMidDrain() throws Exception {
    ControllerWorld world = new ControllerWorld();
    fleet = FleetUnderFaults.create(world, 12, 2);
    List<FleetUnderFaults.Node> first = fleet.nodes().subList(0, 6);
    List<FleetUnderFaults.Node> second = fleet.nodes().subList(6, 12);
    Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns));
    proxy = FaultProxy.start(world.cp.kubeconfig(), dir);

    // start-up: discovery, the initial lists and the first writes all meet 429s for STORM from
    // the process's first request (a JVM start on a loaded machine takes a while)
    proxy.failWith(429, Duration.ofMinutes(2));
    controller =
        ControllerProcess.start(
            proxy.kubeconfig(),
            dir.resolve("controller.log"),
            // no poollet renews these pools' Leases: keep the health loop from marking them
            // Unknown mid-drain (a pool status write racing the drain's Maintenance write)
            "--machine-pool-lifecycle-grace-period=10m");
    ControllerWorld.processStarts().until(() -> proxy.counters().tooManyRequests() > 0);
    proxy.failWith(429, STORM);
    ControllerWorld.processStarts().until(fleet::allManaged);
    assertThat(controller.alive()).isTrue();
    long startUp429 = proxy.counters().tooManyRequests();
    assertThat(startUp429).as("429s at start-up: %s", proxy.counters()).isPositive();
    fleet.startActing();

    // mid-drain: 500s
    fleet.deleteCapiMachines(first);
    ControllerWorld.processStarts().until(() -> fleet.evictionStarted(first));
    storm(500);
    ControllerWorld.processStarts().until(() -> !proxy.failing());
    assertThat(proxy.counters().internalErrors()).as("500s: %s", proxy.counters()).isPositive();

    // mid-drain: 429s again
    fleet.deleteCapiMachines(second);
    ControllerWorld.processStarts().until(() -> fleet.evictionStarted(second));
    storm(429);
    ControllerWorld.processStarts().until(() -> !proxy.failing());
    assertThat(proxy.counters().tooManyRequests())
        .as("429s mid-drain: %s", proxy.counters())
        .isGreaterThan(startUp429);

    fleet.awaitAllDrained(Duration.ofMinutes(3));
    assertThat(controller.alive()).as("the controller never exits").isTrue();
    fleet.assertInvariants();
    ControllerWorld.eventually()
        .atMost(Duration.ofSeconds(60))
        .until(() -> controller.probe("/readyz") == 200 && controller.probe("/healthz") == 200);
    org.slf4j.LoggerFactory.getLogger(ApiServerErrorsE2ETest.class).info("controller ready");
    System.out.println("ApiServerErrorsE2ETest: proxy " + proxy.counters());
  }
}

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
 * A leader ({@code --leader-elect}) whose API server answers 500 to everything, through a proxy
 * ({@link FaultProxy}). Shorter than the renew deadline (10 s), the leader keeps its Lease, keeps
 * retrying and finishes its drains. Longer, it cannot renew the Lease: it stops at once with exit
 * code 1 (the documented, deliberate restart: another replica may lead by now, so it must not write
 * anything more); the next process, started as the kubelet would, takes the Lease once the API
 * server answers again and finishes the drains with the invariants of {@link FleetUnderFaults}.
 */
class ApiServerErrorsLeaderElectionE2ETest {
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

  private ControllerProcess start(ControllerWorld world, Path dir) throws Exception {
    return ControllerProcess.start(
        proxy.kubeconfig(),
        dir.resolve("controller.log"),
        java.util.Map.of("POD_NAME", "leader"),
        "--leader-elect",
        "--leader-election-namespace=" + world.ns);
  }

  @Test
  void aShortStormIsRiddenOutALongOneRestartsTheLeaderWhichThenFinishes() throws Exception {
    ControllerWorld world = new ControllerWorld();
    fleet = FleetUnderFaults.create(world, 10, 2);
    List<FleetUnderFaults.Node> first = fleet.nodes().subList(0, 5);
    List<FleetUnderFaults.Node> second = fleet.nodes().subList(5, 10);
    Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns));
    proxy = FaultProxy.start(world.cp.kubeconfig(), dir);
    controller = start(world, dir);
    ControllerWorld.processStarts().until(fleet::allManaged);
    fleet.startActing();

    // shorter than the renew deadline: the leader stays
    fleet.deleteCapiMachines(first);
    ControllerWorld.processStarts().until(() -> fleet.evictionStarted(first));
    proxy.failWith(500, Duration.ofSeconds(4));
    proxy.cutWatches();
    ControllerWorld.processStarts().until(() -> !proxy.failing());
    long shortStorm = proxy.counters().internalErrors();
    assertThat(shortStorm).as("500s: %s", proxy.counters()).isPositive();
    ControllerWorld.processStarts()
        .until(() -> first.stream().allMatch(n -> world.capiMachine(n.capi()) == null));
    assertThat(controller.alive()).as("the short storm did not end the leader").isTrue();
    fleet.assertEventsOf(first);

    // longer than the renew deadline: the leader exits 1, a new process takes over afterwards
    fleet.deleteCapiMachines(second);
    ControllerWorld.processStarts().until(() -> fleet.evictionStarted(second));
    proxy.failWith(500, Duration.ofSeconds(25));
    proxy.cutWatches();
    ControllerWorld.processStarts().until(() -> !controller.alive());
    assertThat(controller.exitCode()).as("lost the lease: deliberate restart").isEqualTo(1);
    // fabric8's elector (between attempts) or the renewal watchdog (while an attempt retries)
    assertThat(Files.readString(dir.resolve("controller.log")))
        .containsAnyOf("lost the lease; exiting", "could not renew Lease");
    ControllerWorld.processStarts().until(() -> !proxy.failing());
    controller = start(world, dir);

    fleet.awaitAllDrained(Duration.ofMinutes(3));
    assertThat(controller.alive()).isTrue();
    // events of the second half may be lost: those still being retried when the leader exited
    fleet.assertFlowInvariants();
    assertThat(proxy.counters().internalErrors()).isGreaterThan(shortStorm);
    System.out.println("ApiServerErrorsLeaderElectionE2ETest: proxy " + proxy.counters());
  }

  /**
   * An API server that stops answering altogether (SIGSTOPped, or a network path gone silent):
   * fabric8's elector would wait in its renewal for the request timeout and its retries, leading on
   * for minutes while a standby could take the expired Lease. The renewal watchdog ends the leader
   * once the renew deadline passed without a renewal, before the Lease it last renewed expires.
   */
  @Test
  void aLeaderWhoseApiServerStopsAnsweringExitsBeforeItsLeaseExpires() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns + "-frozen"));
    proxy = FaultProxy.start(world.cp.kubeconfig(), dir);
    controller = start(world, dir);
    ControllerWorld.processStarts().until(() -> controller.probe("/readyz") == 200);
    Path log = dir.resolve("controller.log");
    ControllerWorld.processStarts().until(() -> Files.readString(log).contains(" leads ("));

    proxy.freeze(Duration.ofSeconds(45));
    ControllerWorld.processStarts()
        .pollInterval(Duration.ofMillis(50))
        .until(() -> !controller.alive());
    java.time.Instant exited = java.time.Instant.now();

    assertThat(proxy.frozen()).as("it stopped without any answer from the API server").isTrue();
    assertThat(controller.exitCode()).isEqualTo(1);
    assertThat(Files.readString(log))
        .contains("leader election: leader could not renew Lease " + world.ns + "/")
        .contains("(renew deadline 10 s; the API server did not answer in time, or this process");
    var lease =
        world
            .client
            .leases()
            .inNamespace(world.ns)
            .withName(dev.ironcore.maintenance.controller.LeaderElection.LEASE_NAME)
            .get();
    java.time.Instant expires =
        lease
            .getSpec()
            .getRenewTime()
            .toInstant()
            .plusSeconds(lease.getSpec().getLeaseDurationSeconds());
    assertThat(exited).as("exited before its Lease expired (%s)", expires).isBefore(expires);
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.faults.SilentTcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's connections to the IronCore API server go silent without a reset (a stalled load
 * balancer, NAT or firewall: {@link SilentTcpProxy}) and stay so after the network is back, while
 * new connections work: the process cannot recover them itself (the JDK's HTTP/2 client and the
 * WebSocket watches wait on them), so {@code /healthz} must fail for Kubernetes to restart it
 * (fresh eyes, session 47: 4 minutes after the network came back nothing had reconnected and {@code
 * /healthz} said 200). A proxy, because a real API server cannot produce this fault.
 */
class StalledConnectionE2ETest {
  private ControllerProcess controller;
  private SilentTcpProxy proxy;

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void connectionsStalledWhileNewOnesAreAnsweredFailTheLivenessProbe() throws Exception {
    ControllerWorld world = new ControllerWorld();
    proxy = world.proxy();
    Path dir = Path.of("target", "stalled");
    Path proxied = world.kubeconfigVia(proxy, dir);
    Path log = dir.resolve(world.ns + ".log");
    controller =
        ControllerProcess.start(world.cp.kubeconfig(), log, "--ironcore-kubeconfig=" + proxied);
    ControllerWorld.processStarts()
        .until(() -> controller.probe("/readyz") == 200 && controller.probe("/healthz") == 200);

    proxy.silence();
    eventually()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.readString(log).contains("unreachable (no answer"));
    // the probe over a new connection gets no answer either: an outage, no restart
    eventually()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(log).contains("does not answer a new connection either"));
    assertThat(controller.probe("/healthz"))
        .as("an API server that answers no connection is an outage, not a reason to restart")
        .isEqualTo(200);

    proxy.heal(); // new connections pass; the controller's stay silent
    eventually().atMost(Duration.ofSeconds(60)).until(() -> controller.probe("/healthz") == 503);
    assertThat(Files.readString(log))
        .contains("answers on a new connection but not on this process's connections")
        .contains("/healthz fails from now");
  }

  /**
   * Two clusters, one replica without a Lease: the CAPI API server's connection is probed as well
   * (fresh eyes, session 48: nothing kept it busy, a NAT dropped it as idle, and drains waited on
   * it for minutes with {@code /healthz} 200); its stall fails {@code /healthz} too.
   */
  @Test
  void theCapiApiServersConnectionsStalledFailTheLivenessProbeToo() throws Exception {
    ControllerWorld world = new ControllerWorld();
    proxy = world.proxy();
    Path dir = Path.of("target", "stalled-capi");
    Path proxied = world.kubeconfigVia(proxy, dir);
    Path log = dir.resolve(world.ns + ".log");
    // CAPI Machines through the proxy, the IronCore API direct (the same API server here)
    controller =
        ControllerProcess.start(proxied, log, "--ironcore-kubeconfig=" + world.cp.kubeconfig());
    ControllerWorld.processStarts()
        .until(() -> controller.probe("/readyz") == 200 && controller.probe("/healthz") == 200);

    proxy.silence();
    eventually()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Files.readString(log)
                    .contains(
                        "(CAPI Machines) unreachable (no answer, or 5xx only, to GET /readyz"));
    assertThat(Files.readString(log))
        .contains("drains can write no CAPI Machine (hooks, finalizers) until it answers again");
    proxy.heal();
    eventually().atMost(Duration.ofSeconds(60)).until(() -> controller.probe("/healthz") == 503);
    assertThat(Files.readString(log))
        .contains("(CAPI Machines) answers on a new connection but not on this process's");
  }
}

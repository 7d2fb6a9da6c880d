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

  /**
   * Starts the controller with one of its two kubeconfigs through {@link #proxy} (the same API
   * server either way) and waits until it is ready and healthy.
   *
   * @param capiThroughProxy the CAPI one ({@code --kubeconfig}), else the IronCore one
   * @return its log
   */
  private Path startBehindProxy(String dirName, boolean capiThroughProxy) throws Exception {
    ControllerWorld world = new ControllerWorld();
    proxy = world.proxy();
    Path dir = Path.of("target", dirName);
    Path proxied = world.kubeconfigVia(proxy, dir);
    Path direct = world.cp.kubeconfig();
    Path log = dir.resolve(world.ns + ".log");
    controller =
        ControllerProcess.start(
            capiThroughProxy ? proxied : direct,
            log,
            "--ironcore-kubeconfig=" + (capiThroughProxy ? direct : proxied));
    ControllerWorld.processStarts()
        .until(() -> controller.probe("/readyz") == 200 && controller.probe("/healthz") == 200);
    return log;
  }

  @Test
  void connectionsStalledWhileNewOnesAreAnsweredFailTheLivenessProbe() throws Exception {
    Path log = startBehindProxy("stalled", false);

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
    Path log = startBehindProxy("stalled-capi", true);

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

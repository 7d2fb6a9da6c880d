package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.controller.runtime.ApiFailure;
import dev.ironcore.maintenance.testkit.faults.FaultProxy;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The loops' clients ({@link Clusters#failFast()}) send a failed request once, where fabric8's own
 * retries would send it 11 times; counted by a fault proxy in front of a real API server.
 */
class FailFastClientsE2ETest {
  private final ControllerWorld world = new ControllerWorld();
  private FaultProxy proxy;
  private KubernetesClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  private Clusters throughProxy() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns));
    proxy = FaultProxy.start(world.cp.kubeconfig(), dir);
    Config config = Config.fromKubeconfig(Files.readString(proxy.kubeconfig()));
    // fabric8's default 10 retries, but 10 ms apart instead of 100 ms doubling to 3.2 s
    config.setRequestRetryBackoffInterval(10);
    client = dev.ironcore.maintenance.api.json.JsonMappers.client(config);
    return Clusters.single(client);
  }

  private long failedAttempts(KubernetesClient c, String pool) {
    long before = proxy.counters().faultsInjected();
    KubernetesClientException e =
        catchThrowableOfType(
            KubernetesClientException.class,
            () -> c.resources(MachinePool.class).withName(pool).get());
    assertThat(e).as("the injected failure reaches the caller").isNotNull();
    return proxy.counters().faultsInjected() - before;
  }

  @Test
  void aRequestAnswered500Or429IsSentOnceByTheLoopsClientsAndElevenTimesByTheBaseOnes()
      throws Exception {
    Clusters base = throughProxy();
    Clusters loops = base.failFast();
    String pool = world.poolName("fast");
    world.createPool(pool, List.of());

    proxy.failWith(500, Duration.ofMinutes(5));
    assertThat(failedAttempts(loops.ironcore(), pool)).isEqualTo(1);
    assertThat(failedAttempts(base.ironcore(), pool)).as("fabric8's 10 retries").isEqualTo(11);

    proxy.failWith(429, Duration.ofMinutes(5));
    KubernetesClientException throttled =
        catchThrowableOfType(
            KubernetesClientException.class,
            () -> loops.ironcore().resources(MachinePool.class).withName(pool).get());
    assertThat(throttled.getCode()).isEqualTo(429);
    assertThat(ApiFailure.retryAfter(throttled))
        .as("the loop waits this long before the next pass")
        .isEqualTo(FaultProxy.DEFAULT_RETRY_AFTER);
    assertThat(proxy.counters().tooManyRequests()).isEqualTo(1);

    proxy.stopFailing();
    assertThat(loops.ironcore().resources(MachinePool.class).withName(pool).get())
        .as("otherwise the same client: address, credentials")
        .isNotNull();
    assertThat(loops.separate()).isFalse();
  }

  /**
   * A write behind an admission webhook that accepts the connection and never answers, with a
   * {@code timeoutSeconds} longer than fabric8's default request timeout (10 s): the loops' client
   * waits for the API server's own answer (500, naming the webhook) instead of giving up first
   * while the API server goes on with the write.
   */
  @Test
  void aWriteBehindAHungWebhookGetsTheApiServersAnswerNotAClientTimeout() throws Exception {
    String pool = world.poolName("hung");
    world.createPool(pool, List.of());
    String name = "e2e-hung-" + world.ns;
    try (java.net.ServerSocket hung =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    held.add(hung.accept()); // held open, never read nor answered
                  }
                } catch (java.io.IOException closed) {
                  // the test is over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      world.createPoolWebhook(
          name,
          pool,
          "hung",
          "machinepools",
          "https://127.0.0.1:" + hung.getLocalPort() + "/validate",
          13);
      Clusters loops = Clusters.single(world.ironcore).failFast();
      KubernetesClientException e =
          catchThrowableOfType(
              KubernetesClientException.class,
              () ->
                  loops
                      .ironcore()
                      .resources(MachinePool.class)
                      .withName(pool)
                      .edit(
                          p -> {
                            p.getMetadata().getLabels().put("written", "yes");
                            return p;
                          }));
      assertThat(e).as("the webhook refuses by failing").isNotNull();
      assertThat(e.getCode()).as("%s", ApiFailure.describe(e)).isEqualTo(500);
      assertThat(ApiFailure.describe(e))
          .contains("failed calling webhook \"hung.e2e.ironcore.dev\"");
      held.forEach(
          socket -> {
            try {
              socket.close();
            } catch (java.io.IOException ignored) {
              // closing only
            }
          });
    } finally {
      world
          .cp
          .kubectl("delete", "validatingwebhookconfigurations", name, "--ignore-not-found")
          .orThrow();
    }
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.testkit.faults.FaultProxy;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API server stops answering for longer than the grace period (a proxy between the controller
 * and the API server holds every request, as a SIGSTOPped kube-apiserver would), and the pools'
 * agents cannot renew their Leases meanwhile either. When it answers again, a pool whose agent
 * renews within the grace period must not be set {@code Ready=Unknown} (it was, with a {@code
 * PoolUnknown} Warning, and back to {@code True} at the next renewal: found with {@code make run}
 * and {@code kill -STOP} on its kube-apiserver); a pool whose agent stays silent is set Unknown one
 * grace period after the API server answered again, not earlier. Meanwhile {@code
 * ironcore_maintenance_api_server_reachable} reads 0.
 */
class ApiServerFreezeHealthE2ETest extends InProcessController {
  private static final Duration GRACE = Duration.ofSeconds(4);
  private static final Duration FREEZE = Duration.ofSeconds(14);
  private final ScheduledExecutorService poollet = Executors.newSingleThreadScheduledExecutor();
  private FaultProxy proxy;

  @Override
  protected ControllerOptions options() {
    return ControllerOptions.defaults().withGracePeriod(GRACE);
  }

  @Override
  protected void prepare() {
    PoolAgent.createLeaseNamespace(world);
  }

  @Override
  protected KubernetesClient client() {
    try {
      Path dir = Files.createDirectories(Path.of("target", "fault-tests", world.ns + "-freeze"));
      proxy = FaultProxy.start(world.cp.kubeconfig(), dir);
      return JsonMappers.client(Config.fromKubeconfig(Files.readString(proxy.kubeconfig())));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @AfterEach
  void stopPoolletAndProxy() {
    poollet.shutdownNow();
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void poolsGetTheGracePeriodAfterAFrozenApiServerAnswersAgain() throws Exception {
    String alive = world.poolName("alive");
    String dead = world.poolName("dead");
    for (String pool : List.of(alive, dead)) {
      world.createPool(pool, List.of());
      PoolAgent.markReady(world, pool);
      PoolAgent.renewLease(world, pool);
    }
    ScheduledFuture<?> renewing =
        poollet.scheduleAtFixedRate(
            () -> List.of(alive, dead).forEach(p -> PoolAgent.renewLease(world, p)),
            500,
            500,
            TimeUnit.MILLISECONDS);
    eventually().until(() -> controller.isReady());
    eventually()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(6))
        .until(() -> "True".equals(PoolAgent.ready(world.pool(alive)).getStatus()));

    // the API server stops answering the controller; the agents cannot renew either
    assertThat(scrape()).contains("\nironcore_maintenance_api_server_reachable 1.0\n");
    renewing.cancel(false);
    proxy.freeze(FREEZE);
    // what an operator sees meanwhile: the gauge (the log says it too), not only a log line
    eventually()
        .atMost(FREEZE.minusSeconds(2))
        .until(() -> scrape().contains("\nironcore_maintenance_api_server_reachable 0.0\n"));
    ControllerWorld.processStarts()
        .pollInterval(Duration.ofMillis(20))
        .until(() -> !proxy.frozen());
    Instant answersAgain = Instant.now();
    // the live agent renews 1 s after the API server is back (within the grace period)
    Thread.sleep(1000);
    renewing =
        poollet.scheduleAtFixedRate(
            () -> PoolAgent.renewLease(world, alive), 0, 500, TimeUnit.MILLISECONDS);

    eventually()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "Unknown".equals(PoolAgent.ready(world.pool(dead)).getStatus()));
    assertThat(scrape()).contains("\nironcore_maintenance_api_server_reachable 1.0\n");
    Instant deadUnknown = Instant.parse(PoolAgent.ready(world.pool(dead)).getLastTransitionTime());
    assertThat(deadUnknown)
        .as("the silent pool's grace period counted from the API server's answer")
        .isAfterOrEqualTo(answersAgain.plus(GRACE).minusSeconds(1));
    assertThat(PoolAgent.ready(world.pool(alive)).getStatus())
        .as("the pool whose agent renewed after the freeze")
        .isEqualTo("True");
    assertThat(
            world.client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> alive.equals(e.getInvolvedObject().getName()))
                .filter(e -> "PoolUnknown".equals(e.getReason())))
        .isEmpty();
  }
}

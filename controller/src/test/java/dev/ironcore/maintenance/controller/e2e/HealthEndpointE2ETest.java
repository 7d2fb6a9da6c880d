package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.testkit.AlertSeries;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller process's /healthz, /readyz and Prometheus /metrics, as a kubelet probe and a
 * scraper see them.
 */
class HealthEndpointE2ETest {
  private final HttpClient http = HttpClient.newHttpClient();
  private ControllerProcess controller;

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    int port = path.equals("/metrics") ? controller.metricsPort() : controller.healthPort();
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private boolean ok(String path) {
    try {
      return get(path).statusCode() == 200;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void probesAnswerAndMetricsCountWhatTheLoopsDid() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path log = Files.createDirectories(Path.of("target", "health")).resolve(world.ns + ".log");
    controller = ControllerProcess.start(world.cp.kubeconfig(), log);
    ControllerWorld.processStarts().until(() -> ok("/healthz") && ok("/readyz"));

    String pool = world.poolName("metrics");
    world.createPool(pool, List.of(), new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoExecute"));
    world.createMachine("vm-1", pool);
    eventually().until(() -> world.machine("vm-1").getMetadata().getDeletionTimestamp() != null);

    eventually()
        .untilAsserted(
            () -> {
              String metrics = get("/metrics").body();
              assertThat(metrics).contains("ironcore_maintenance_evictions_total 1.0");
              assertThat(metrics).contains("workqueue_depth{name=\"drain\"}");
              assertThat(metrics).contains("workqueue_retries_total{name=\"health\"} 0.0");
              assertThat(metrics)
                  .containsPattern(
                      "controller_runtime_reconcile_total\\{controller=\"eviction\",result=\"success\"\\} [1-9]");
              assertThat(metrics)
                  .contains("controller_runtime_reconcile_errors_total{controller=\"drain\"}");
              assertThat(metrics).contains("jvm_memory_used_bytes");
            });
    assertThat(get("/metrics").headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
  }

  /**
   * Every series the sample alerts of {@code manifests/monitoring/prometheus_rule.yaml} select is
   * exported by the controller as its Deployment runs it (with {@code --leader-elect}), before
   * anything happened: an alert on a renamed meter or a missing label would never fire.
   */
  @Test
  void everySeriesTheControllerAlertsSelectIsExported() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path log = Files.createDirectories(Path.of("target", "health")).resolve(world.ns + ".log");
    controller =
        ControllerProcess.start(
            world.cp.kubeconfig(),
            log,
            java.util.Map.of("POD_NAME", "alerts-" + world.ns),
            "--leader-elect",
            "--leader-election-namespace=" + world.ns);
    ControllerWorld.processStarts().until(() -> ok("/readyz"));
    List<AlertSeries.Selector> selectors = AlertSeries.of("ironcore-maintenance");
    assertThat(selectors)
        .extracting(AlertSeries.Selector::metric)
        .contains("leader_election_master_status", "ironcore_maintenance_pools");

    eventually()
        .untilAsserted(
            () -> {
              String metrics = get("/metrics").body();
              assertThat(selectors)
                  .allSatisfy(s -> assertThat(s.matches(metrics)).as(s.toString()).isTrue());
            });
  }
}

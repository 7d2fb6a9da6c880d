package dev.ironcore.maintenance.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ControllerMetricsTest {

  @Test
  void exportsTheDocumentedPrometheusNamesWithTheirLabels() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    AtomicInteger depth = new AtomicInteger(3);
    metrics.queueDepth("drain", depth::get);
    metrics.reconciled("drain", "done", Duration.ofMillis(5));
    metrics.reconciled("drain", "done", Duration.ofMillis(7));
    metrics.reconciled("eviction", "error", Duration.ofMillis(1));
    metrics.evicted();
    metrics.evicted();
    metrics.drainStep("AddTaints");
    metrics.poolMarkedUnknown();

    String text = registry.scrape();
    assertThat(text)
        .contains("ironcore_maintenance_workqueue_depth{loop=\"drain\"} 3.0")
        .contains("ironcore_maintenance_reconcile_seconds_count{loop=\"drain\",result=\"done\"} 2")
        .contains(
            "ironcore_maintenance_reconcile_seconds_count{loop=\"eviction\",result=\"error\"} 1")
        .contains("ironcore_maintenance_evictions_total 2.0")
        .contains("ironcore_maintenance_drain_steps_total{step=\"AddTaints\"} 1.0")
        .contains("ironcore_maintenance_pools_marked_unknown_total 1.0");
    depth.set(0);
    assertThat(registry.scrape())
        .contains("ironcore_maintenance_workqueue_depth{loop=\"drain\"} 0.0");
  }

  @Test
  void countersExistAtZeroFromTheStartAndDrainMetersCarryTheirNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    metrics.drainSteps(java.util.List.of("AddTaints", "Hold"));
    metrics.drainGauges(() -> 1, () -> 2, () -> 3, () -> 42.5);
    metrics.pools(
        (ready, maintenance) -> "True".equals(ready) && "none".equals(maintenance) ? 4 : 0);
    metrics.blockingMachines(java.util.Map.of("pool-a", 2));
    metrics.drainCompleted(Duration.ofSeconds(45));

    String text = registry.scrape();
    assertThat(text)
        .contains("ironcore_maintenance_evictions_total 0.0")
        .contains("ironcore_maintenance_pools_marked_unknown_total 0.0")
        .contains("ironcore_maintenance_drain_steps_total{step=\"AddTaints\"} 0.0")
        .contains("ironcore_maintenance_drain_steps_total{step=\"Hold\"} 0.0")
        .contains("ironcore_maintenance_drains_in_progress 1.0")
        .contains("ironcore_maintenance_drains_queued 2.0")
        .contains("ironcore_maintenance_drains_stuck 3.0")
        .contains("ironcore_maintenance_drain_oldest_age_seconds 42.5")
        .contains("ironcore_maintenance_drain_blocking_machines{pool=\"pool-a\"} 2.0")
        .contains("ironcore_maintenance_pools{maintenance=\"none\",ready=\"True\"} 4.0")
        .contains("ironcore_maintenance_pools{maintenance=\"DrainStuck\",ready=\"Unknown\"} 0.0")
        .contains("ironcore_maintenance_drain_duration_seconds_bucket{le=\"30.0\"} 0")
        .contains("ironcore_maintenance_drain_duration_seconds_bucket{le=\"60.0\"} 1");
    metrics.reconciled("drain", "done", Duration.ofMillis(7));
    assertThat(registry.scrape())
        .contains(
            "ironcore_maintenance_reconcile_seconds_bucket{loop=\"drain\",result=\"done\",le=\"0.01\"} 1");
    metrics.blockingMachines(java.util.Map.of());
    assertThat(registry.scrape()).doesNotContain("ironcore_maintenance_drain_blocking_machines{");
  }
}

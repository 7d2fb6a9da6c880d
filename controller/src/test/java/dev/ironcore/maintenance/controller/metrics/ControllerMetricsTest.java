package dev.ironcore.maintenance.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ControllerMetricsTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ControllerMetrics metrics = new ControllerMetrics(registry);

  @Test
  void exportsTheDocumentedPrometheusNamesWithTheirLabels() {
    metrics.evicted();
    metrics.evicted();
    metrics.drainStep("AddTaints");
    metrics.poolMarkedUnknown();
    metrics.evictionFailed();

    assertThat(registry.scrape())
        .contains("ironcore_maintenance_evictions_total 2.0")
        .contains("ironcore_maintenance_eviction_failures_total 1.0")
        .contains("ironcore_maintenance_drain_steps_total{step=\"AddTaints\"} 1.0")
        .contains("ironcore_maintenance_pools_marked_unknown_total 1.0");
  }

  @Test
  void informerRelistsAreCountedByResourceAndReason() {
    AtomicLong expired = new AtomicLong();
    metrics.informerRelists("machines", "expired", expired::get);
    metrics.informerRelists("machines", "error", () -> 0);
    expired.addAndGet(2);

    assertThat(registry.scrape())
        .contains(
            "ironcore_maintenance_informer_relists_total{reason=\"expired\",resource=\"machines\"} 2.0")
        .contains(
            "ironcore_maintenance_informer_relists_total{reason=\"error\",resource=\"machines\"} 0.0");
  }

  @Test
  void anInformersWatchSilenceIsExportedInSeconds() {
    java.util.concurrent.atomic.AtomicReference<Double> silence =
        new java.util.concurrent.atomic.AtomicReference<>(12.5);
    metrics.informerWatchSilence("machinepools", () -> silence.get());
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    silence.set(61.0);
    assertThat(registry.scrape())
        .contains(
            "ironcore_maintenance_informer_watch_silence_seconds{resource=\"machinepools\"} 61.0");
  }

  @Test
  void informerCountersFollowTheirSuppliersAfterAGarbageCollection() {
    AtomicLong restarts = new AtomicLong();
    AtomicLong relists = new AtomicLong();
    // lambdas referenced by nobody but the metrics, as ControllerApp registers them
    metrics.informer("leases", "Lease.coordination.k8s.io", () -> true, () -> restarts.get());
    metrics.informerRelists("leases", "expired", () -> relists.get());
    assertThat(registry.scrape())
        .contains("ironcore_maintenance_informer_restarts_total{resource=\"leases\"} 0.0");
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    restarts.set(3);
    relists.set(4);

    assertThat(registry.scrape())
        .contains("ironcore_maintenance_informer_restarts_total{resource=\"leases\"} 3.0")
        .contains(
            "ironcore_maintenance_informer_relists_total{reason=\"expired\",resource=\"leases\"} 4.0");
  }

  @Test
  void everyCounterOfALoopExistsAtZeroBeforeAnythingHappened() {
    metrics.workQueue("drain");
    metrics.reconcile("drain");

    assertThat(registry.scrape())
        .contains("ironcore_maintenance_evictions_total 0.0")
        .contains("ironcore_maintenance_eviction_failures_total 0.0")
        .contains("ironcore_maintenance_pools_marked_unknown_total 0.0")
        .contains("ironcore_maintenance_drain_write_failures_total 0.0")
        .contains("workqueue_depth{name=\"drain\"} 0.0")
        .contains("workqueue_adds_total{name=\"drain\"} 0.0")
        .contains("workqueue_retries_total{name=\"drain\"} 0.0")
        .contains("workqueue_queue_duration_seconds_count{name=\"drain\"} 0")
        .contains("workqueue_work_duration_seconds_count{name=\"drain\"} 0")
        .contains("workqueue_unfinished_work_seconds{name=\"drain\"} 0.0")
        .contains("workqueue_longest_running_processor_seconds{name=\"drain\"} 0.0")
        .contains("controller_runtime_reconcile_total{controller=\"drain\",result=\"success\"} 0.0")
        .contains("controller_runtime_reconcile_total{controller=\"drain\",result=\"requeue\"} 0.0")
        .contains(
            "controller_runtime_reconcile_total{controller=\"drain\",result=\"requeue_after\"} 0.0")
        .contains("controller_runtime_reconcile_total{controller=\"drain\",result=\"error\"} 0.0")
        .contains("controller_runtime_reconcile_errors_total{controller=\"drain\"} 0.0")
        .contains("controller_runtime_reconcile_panics_total{controller=\"drain\"} 0.0")
        .contains("controller_runtime_reconcile_time_seconds_count{controller=\"drain\"} 0");
  }

  @Test
  void workQueueMetricsFollowClientGo() {
    AtomicLong now = new AtomicLong();
    WorkQueueMetrics queue = new WorkQueueMetrics(registry, "eviction", now::get);

    queue.added("a");
    queue.added("b");
    now.addAndGet(2_000_000_000L);
    queue.taken("a");
    queue.taken("b");
    now.addAndGet(3_000_000_000L);
    queue.done("a");
    now.addAndGet(1_000_000_000L);
    queue.retried();

    assertThat(registry.scrape())
        .contains("workqueue_depth{name=\"eviction\"} 0.0")
        .contains("workqueue_adds_total{name=\"eviction\"} 2.0")
        .contains("workqueue_retries_total{name=\"eviction\"} 1.0")
        .contains("workqueue_queue_duration_seconds_count{name=\"eviction\"} 2")
        .contains("workqueue_queue_duration_seconds_sum{name=\"eviction\"} 4.0")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"eviction\",le=\"10.0\"} 2")
        .contains("workqueue_work_duration_seconds_sum{name=\"eviction\"} 3.0")
        .contains("workqueue_unfinished_work_seconds{name=\"eviction\"} 4.0")
        .contains("workqueue_longest_running_processor_seconds{name=\"eviction\"} 4.0");
  }

  @Test
  void reconcileMetricsCountResultsErrorsAndErrorsThatAreNotExceptions() {
    ReconcileMetrics reconcile = metrics.reconcile("health");

    reconcile.returned("success", Duration.ofMillis(3));
    reconcile.returned("requeue_after", Duration.ofMillis(3));
    reconcile.threw(new IllegalStateException("conflict"), Duration.ofMillis(3));
    reconcile.threw(new AssertionError("bug"), Duration.ofMillis(3));

    assertThat(registry.scrape())
        .contains(
            "controller_runtime_reconcile_total{controller=\"health\",result=\"success\"} 1.0")
        .contains(
            "controller_runtime_reconcile_total{controller=\"health\",result=\"requeue_after\"} 1.0")
        .contains("controller_runtime_reconcile_total{controller=\"health\",result=\"error\"} 2.0")
        .contains("controller_runtime_reconcile_errors_total{controller=\"health\"} 2.0")
        .contains("controller_runtime_reconcile_panics_total{controller=\"health\"} 1.0")
        .contains("controller_runtime_reconcile_time_seconds_count{controller=\"health\"} 4")
        .contains(
            "controller_runtime_reconcile_time_seconds_bucket{controller=\"health\",le=\"0.005\"} 4");
    assertThatThrownBy(() -> reconcile.returned("error", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
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
        .contains("ironcore_maintenance_eviction_failures_total 0.0")
        .contains("ironcore_maintenance_pools_marked_unknown_total 0.0")
        .contains("ironcore_maintenance_drain_write_failures_total 0.0")
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
    metrics.blockingMachines(java.util.Map.of());
    assertThat(registry.scrape()).doesNotContain("ironcore_maintenance_drain_blocking_machines{");
  }

  @Test
  void drainWorkersUpdatingTheBlockingGaugeAtOnceLeaveEveryPoolWithItsLastCount() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    java.util.Map<String, Integer> byPool = new java.util.concurrent.ConcurrentHashMap<>();
    int workers = 8;
    for (int round = 0; round < 50; round++) {
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(workers);
      java.util.List<Thread> threads = new java.util.ArrayList<>();
      int r = round;
      for (int w = 0; w < workers; w++) {
        String pool = "pool-" + r + "-" + w;
        Thread t =
            new Thread(
                () -> {
                  try {
                    start.await();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  byPool.put(pool, 3);
                  metrics.blockingMachines(byPool);
                });
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join();
      }
    }
    String text = registry.scrape();
    for (int round = 0; round < 50; round++) {
      for (int w = 0; w < workers; w++) {
        assertThat(text)
            .contains(
                "ironcore_maintenance_drain_blocking_machines{pool=\"pool-"
                    + round
                    + "-"
                    + w
                    + "\"} 3.0");
      }
    }
  }
}

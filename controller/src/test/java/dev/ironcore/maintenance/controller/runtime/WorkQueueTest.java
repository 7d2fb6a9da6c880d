package dev.ironcore.maintenance.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.controller.metrics.WorkQueueMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  @Test
  void aKeyIsQueuedOnce() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      q.add("a");
      q.add("a");
      q.add("b");
      assertThat(q.length()).isEqualTo(2);
      assertThat(q.take()).isEqualTo("a");
      assertThat(q.take()).isEqualTo("b");
    }
  }

  @Test
  void aKeyAddedWhileProcessingIsProcessedAgainAfterwardsNotConcurrently() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      q.add("a");
      assertThat(q.take()).isEqualTo("a");
      q.add("a");
      assertThat(q.length()).isZero();
      q.done("a");
      assertThat(q.length()).isEqualTo(1);
    }
  }

  @Test
  void delayedAndRateLimitedAddsArrive() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      q.addAfter("a", Duration.ofMillis(50));
      q.addRateLimited("b");
      q.addRateLimited("b");
      assertThat(q.failures("b")).isEqualTo(2);
      await().atMost(Duration.ofSeconds(5)).until(() -> q.length() == 2);
      q.forget("b");
      assertThat(q.failures("b")).isZero();
    }
  }

  @Test
  void aRateLimitedAddWithAMinimumWaitsTheLongerOfItAndTheBackOff() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(100), Duration.ofSeconds(30))) {
      assertThat(q.addRateLimited("k", Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
      assertThat(q.addRateLimited("k", Duration.ZERO)).isEqualTo(Duration.ofMillis(200));
      for (int i = 0; i < 5; i++) {
        q.addRateLimited("k");
      }
      // the 8th failure: 100 ms << 7
      assertThat(q.addRateLimited("k", Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(12800));
      assertThat(q.failures("k")).isEqualTo(8);
      assertThat(q.waitingCount()).isEqualTo(1);
    }
  }

  @Test
  void retryNowQueuesAKeyWaitingOutItsBackOffAtOnceAndResetsItsBackOff() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofSeconds(10), Duration.ofSeconds(30))) {
      q.addRateLimited("failing"); // waits 10 s
      q.addRateLimited("failing"); // a second failure: the back-off grows (the 10 s wait stays)
      q.addAfter("requeued", Duration.ofSeconds(10)); // a result's requeue, not named below
      q.add("queued");
      q.addRateLimited("queued"); // queued, and waiting too

      assertThat(q.retryNow(java.util.List.of("failing", "queued", "unknown")))
          .as("only a key that waited and was not queued already")
          .containsExactly("failing");
      assertThat(q.failures("failing")).as("back-off reset").isZero();
      assertThat(q.failures("queued")).isZero();
      assertThat(q.length()).isEqualTo(2);
      assertThat(q.isWaiting("requeued")).as("the requeue named by no one still waits").isTrue();
      assertThat(q.isWaiting("failing")).isFalse();
      assertThat(q.take()).isEqualTo("queued");
      assertThat(q.take()).isEqualTo("failing");
      q.done("failing");
      assertThat(q.addRateLimited("failing"))
          .as("back-off from the start")
          .isEqualTo(Duration.ofSeconds(10));
      q.close();
      assertThat(q.retryNow(java.util.List.of("failing"))).as("closed: nothing").isEmpty();
    }
  }

  @Test
  void aKeyRetriedNowIsNotQueuedAgainByItsOldTimer() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(200), Duration.ofSeconds(1))) {
      q.addRateLimited("failing");
      assertThat(q.retryNow(java.util.List.of("failing"))).containsExactly("failing");
      assertThat(q.take()).isEqualTo("failing");
      q.done("failing");
      Thread.sleep(500); // past the dropped deadline
      assertThat(q.length()).as("its timer found no deadline").isZero();
    }
  }

  @Test
  void repeatedDelayedAddsOfOneKeyKeepOnlyTheEarliestDeadline() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      for (int i = 0; i < 20; i++) {
        q.addAfter("held", Duration.ofSeconds(10));
      }
      q.addAfter("held", Duration.ofMillis(50));
      q.addAfter("held", Duration.ofSeconds(5));
      assertThat(q.waitingCount()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(5)).until(() -> q.length() == 1);
      assertThat(q.take()).isEqualTo("held");
      q.done("held");
      assertThat(q.waitingCount()).as("the 10 s and 5 s requests were absorbed").isZero();
    }
  }

  @Test
  void metricsCountAKeyAddedWhileProcessingOnceAndAbsorbedAddsNever() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WorkQueueMetrics metrics = new WorkQueueMetrics(registry, "t", System::nanoTime);
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(10), Duration.ofSeconds(1), metrics)) {
      q.add("a");
      q.add("a"); // absorbed
      assertThat(q.take()).isEqualTo("a");
      q.add("a"); // dirty while processing
      q.add("a"); // absorbed
      assertThat(registry.scrape())
          .contains("workqueue_adds_total{name=\"t\"} 2.0")
          .contains("workqueue_depth{name=\"t\"} 1.0")
          .contains("workqueue_work_duration_seconds_count{name=\"t\"} 0");
      q.done("a");
      assertThat(q.take()).isEqualTo("a");
      q.done("a");
      assertThat(registry.scrape())
          .contains("workqueue_adds_total{name=\"t\"} 2.0")
          .contains("workqueue_depth{name=\"t\"} 0.0")
          .contains("workqueue_queue_duration_seconds_count{name=\"t\"} 2")
          .contains("workqueue_work_duration_seconds_count{name=\"t\"} 2")
          .contains("workqueue_unfinished_work_seconds{name=\"t\"} 0.0");
    }
  }

  @Test
  void afterCloseNothingIsHandedOutOrQueued() throws Exception {
    try (WorkQueue q = new WorkQueue("t", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      q.add("a");
      q.add("b");
      assertThat(q.take()).isEqualTo("a");
      q.close();
      assertThat(q.take()).isNull();
      q.add("a"); // dirty while in flight: dropped
      q.done("a");
      assertThat(q.inFlight()).isEmpty();
      assertThat(q.take()).isNull();
    }
  }
}

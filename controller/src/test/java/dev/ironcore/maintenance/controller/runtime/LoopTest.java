package dev.ironcore.maintenance.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LoopTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ControllerMetrics metrics = new ControllerMetrics(registry);

  /** A reconcile that throws an Error (not an Exception) twice, then succeeds. */
  private static final class FailsTwiceWithAnError implements Reconciler {
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    @Override
    public Result reconcile(String key) {
      int n = calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      if (key.equals("demo/broken") && n <= 2) {
        throw new AssertionError("bug in pass " + n);
      }
      return Result.done();
    }

    int calls(String key) {
      return calls.getOrDefault(key, new AtomicInteger()).get();
    }
  }

  @Test
  void anErrorThrownInAReconcileIsRetriedWithBackOffAndCountedAndTheWorkerLivesOn() {
    FailsTwiceWithAnError reconciler = new FailsTwiceWithAnError();
    try (Loop loop = new Loop("drain", reconciler, metrics)) {
      loop.start(1); // one worker: had it died, nothing below would be processed
      loop.queue().add("demo/broken");

      await().atMost(PATIENCE).until(() -> reconciler.calls("demo/broken") == 3);
      loop.queue().add("demo/next");
      await().atMost(PATIENCE).until(() -> reconciler.calls("demo/next") == 1);

      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(registry.scrape())
                      .contains(
                          "controller_runtime_reconcile_total{controller=\"drain\",result=\"error\"} 2.0")
                      .contains(
                          "controller_runtime_reconcile_total{controller=\"drain\",result=\"success\"} 2.0")
                      .contains(
                          "controller_runtime_reconcile_errors_total{controller=\"drain\"} 2.0")
                      .contains(
                          "controller_runtime_reconcile_panics_total{controller=\"drain\"} 2.0")
                      .contains("workqueue_retries_total{name=\"drain\"} 2.0")
                      .contains("workqueue_adds_total{name=\"drain\"} 4.0")
                      .contains("workqueue_depth{name=\"drain\"} 0.0"));
      assertThat(loop.queue().failures("demo/broken")).as("back-off reset by the success").isZero();
    }
  }

  @Test
  void a429IsRetriedNoSoonerThanItsRetryAfterAndAnyFailureAfterTheBackOff() {
    Map<String, List<Long>> calls = new ConcurrentHashMap<>();
    Reconciler reconciler =
        key -> {
          List<Long> times = calls.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
          times.add(System.nanoTime());
          if (times.size() == 1) {
            throw new io.fabric8.kubernetes.client.KubernetesClientException(
                "Too many requests",
                key.equals("throttled") ? 429 : 500,
                new io.fabric8.kubernetes.api.model.StatusBuilder()
                    .withCode(key.equals("throttled") ? 429 : 500)
                    .build());
          }
          return Result.done();
        };
    try (Loop loop = new Loop("health", reconciler, metrics)) {
      loop.start(2);
      loop.queue().add("throttled");
      loop.queue().add("failed");
      await()
          .atMost(PATIENCE)
          .until(() -> calls.values().stream().filter(t -> t.size() == 2).count() == 2);
      long throttledGap = calls.get("throttled").get(1) - calls.get("throttled").get(0);
      // a lower bound (the API server's Retry-After, 1 s when it names none), not a speed check
      assertThat(Duration.ofNanos(throttledGap)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
      long failedGap = calls.get("failed").get(1) - calls.get("failed").get(0);
      assertThat(Duration.ofNanos(failedGap)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
      assertThat(loop.queue().failures("throttled")).as("reset by the success").isZero();
    }
  }

  /**
   * An API server down for a few seconds: the failing key's back-off has grown to 3.2 s; when it
   * answers again ({@link Loop#retryFailedNow}) the key runs at once, before that back-off ends (an
   * order of events, not a speed check: without the call it could not run before). Keys that the
   * API server's return does not mend keep their wait: one throttled (429, its Retry-After), one
   * refused (403), and one that succeeded after failing and asked to be requeued later.
   */
  @Test
  void keysBackingOffForTheApiServerRunAtOnceWhenItAnswersAgainOthersKeepTheirWait() {
    AtomicBoolean up = new AtomicBoolean();
    Map<String, List<Long>> calls = new ConcurrentHashMap<>();
    Reconciler reconciler =
        key -> {
          List<Long> times = calls.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
          times.add(System.nanoTime());
          if (key.equals("requeued")) {
            if (times.size() == 1) {
              throw answered(503);
            }
            return Result.requeueAfter(Duration.ofMinutes(10), "deadline");
          }
          if (!up.get()) {
            throw answered(
                switch (key) {
                  case "throttled" -> 429;
                  case "refused" -> 403;
                  default -> 503;
                });
          }
          return Result.done();
        };
    try (Loop loop = new Loop("eviction", reconciler, metrics)) {
      loop.start(1);
      List.of("throttled", "refused", "requeued", "failing").forEach(loop.queue()::add);
      // 100 + 200 + 400 + 800 + 1,600 ms of back-off: the 6th failure waits 3.2 s
      await()
          .atMost(PATIENCE)
          .until(
              () ->
                  loop.queue().failures("failing") == 6
                      && loop.queue().isWaiting("failing")
                      && loop.queue().isWaiting("requeued")
                      && calls.get("requeued").size() == 2);
      long sixthFailure = calls.get("failing").get(5);
      up.set(true);

      assertThat(loop.retryFailedNow("API server https://api.example:6443/ answers again"))
          .as("only the key that failed for the API server")
          .isEqualTo(1);

      await().atMost(PATIENCE).until(() -> calls.get("failing").size() == 7);
      assertThat(Duration.ofNanos(calls.get("failing").get(6) - sixthFailure))
          .as("ran before its back-off of 3.2 s ended")
          .isLessThan(Duration.ofMillis(3200));
      assertThat(loop.queue().failures("failing")).as("reset by the success").isZero();
      assertThat(loop.queue().isWaiting("requeued")).as("its 10 minutes stand").isTrue();
      assertThat(loop.retryFailedNow("again")).as("nothing left backing off").isZero();
    }
  }

  private static io.fabric8.kubernetes.client.KubernetesClientException answered(int code) {
    return new io.fabric8.kubernetes.client.KubernetesClientException(
        "answered " + code, code, new io.fabric8.kubernetes.api.model.StatusBuilder().build());
  }

  @Test
  void staleWritesAreInfoThrottlingIsDebugAndAFailureInARowShowsItsStackOnlyAtTheFourth() {
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
        new ch.qos.logback.core.read.ListAppender<>();
    log.start();
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(Loop.class);
    ch.qos.logback.classic.Level level = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    logger.addAppender(log);
    int failures = 6;
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    Reconciler reconciler =
        key -> {
          int n = calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          if (n > failures) {
            return Result.done();
          }
          throw switch (key) {
            case "stale" -> new ObjectChanged(422, answered(422));
            case "throttled" -> answered(429);
            // the 4th in a row is a stale write (INFO): the stack comes with the next WARN
            case "mixed" -> n == 4 ? new ObjectChanged(409, answered(409)) : answered(500);
            default -> answered(500);
          };
        };
    // a short back-off: 6 failures in a row within a second or so (the 429's wait is 1 s each)
    try (Loop loop = new Loop("drain", reconciler, metrics)) {
      loop.start(4);
      List.of("stale", "throttled", "failing", "mixed").forEach(loop.queue()::add);
      await()
          .atMost(PATIENCE)
          .until(() -> calls.values().stream().allMatch(c -> c.get() > failures));
    } finally {
      logger.detachAppender(log);
      logger.setLevel(level);
    }
    java.util.function.Function<String, List<ch.qos.logback.classic.spi.ILoggingEvent>> of =
        key ->
            log.list.stream()
                .filter(e -> e.getFormattedMessage().startsWith("drain " + key + ":"))
                .toList();
    assertThat(of.apply("stale"))
        .hasSize(failures)
        .allSatisfy(
            e -> {
              assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.INFO);
              assertThat(e.getThrowableProxy()).isNull();
            });
    assertThat(of.apply("throttled"))
        .hasSize(failures)
        .allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.DEBUG));
    List<ch.qos.logback.classic.spi.ILoggingEvent> failing = of.apply("failing");
    assertThat(failing)
        .hasSize(failures)
        .allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN));
    assertThat(failing.stream().filter(e -> e.getThrowableProxy() != null).toList())
        .as("the stack once, at the 4th failure in a row")
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage()).contains("failed 4 times"));
    assertThat(of.apply("mixed").stream().filter(e -> e.getThrowableProxy() != null).toList())
        .as("once per run of failures, even when the 4th was not a WARN")
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage()).contains("failed 5 times"));
  }

  @Test
  void resultsAreCountedByControllerRuntimesNames() {
    Reconciler reconciler =
        key ->
            switch (key) {
              case "again" -> Result.again("next step");
              case "later" -> Result.requeueAfter(Duration.ofHours(1), "wait");
              default -> Result.done();
            };
    try (Loop loop = new Loop("eviction", reconciler, metrics)) {
      loop.start(2);
      List.of("done", "later").forEach(loop.queue()::add);
      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(registry.scrape())
                      .contains(
                          "controller_runtime_reconcile_total{controller=\"eviction\",result=\"success\"} 1.0")
                      .contains(
                          "controller_runtime_reconcile_total{controller=\"eviction\",result=\"requeue_after\"} 1.0")
                      .contains("workqueue_work_duration_seconds_count{name=\"eviction\"} 2"));
      assertThat(loop.queue().waitingCount()).as("the requeue_after is pending").isEqualTo(1);
    }
  }

  @Test
  void shutdownTakesNoNewKeyAndWaitsForThePassInFlightWithoutInterruptingIt() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicBoolean finished = new AtomicBoolean();
    List<String> seen = new CopyOnWriteArrayList<>();
    Reconciler reconciler =
        key -> {
          seen.add(key);
          if (key.equals("slow")) {
            started.countDown();
            try {
              release.await();
              finished.set(true);
            } catch (InterruptedException e) {
              interrupted.set(true);
            }
          }
          return Result.done();
        };
    Loop loop = new Loop("health", reconciler, metrics, Duration.ofMinutes(5));
    loop.start(1);
    loop.queue().add("slow");
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
    loop.queue().add("queued-before-shutdown");

    Thread closer = new Thread(loop::close, "closer");
    closer.start();
    await().atMost(PATIENCE).until(() -> loop.queue().isShutDown());
    loop.queue().add("added-after-shutdown");
    assertThat(closer.isAlive()).as("close waits for the pass in flight").isTrue();
    assertThat(registry.scrape())
        .doesNotContain("workqueue_unfinished_work_seconds{name=\"health\"} 0.0");

    release.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(closer.isAlive()).isFalse();
    assertThat(finished).as("the pass ran to its end").isTrue();
    assertThat(interrupted).isFalse();
    assertThat(seen).containsExactly("slow");
  }

  @Test
  void shutdownGivesUpWaitingAfterTheGraceButNeverInterrupts() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Reconciler stuck =
        key -> {
          started.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            interrupted.set(true);
          }
          return Result.done();
        };
    Loop loop = new Loop("drain", stuck, metrics, Duration.ofMillis(200));
    try {
      loop.start(1);
      loop.queue().add("stuck");
      assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

      loop.close(); // returns although the pass still runs
      assertThat(loop.queue().inFlight()).containsExactly("stuck");
      assertThat(loop.awaitTermination(Duration.ZERO)).isFalse();
      assertThat(interrupted).isFalse();
    } finally {
      release.countDown();
    }
    assertThat(loop.awaitTermination(PATIENCE)).isTrue();
    assertThat(interrupted).isFalse();
  }
}

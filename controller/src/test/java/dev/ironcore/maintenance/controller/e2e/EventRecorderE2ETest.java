package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.EventRecorder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The recorder against the real API server from many threads at once (the loops' workers share
 * one): distinct events are all created, and repeats of one event end up as one Event whose count
 * is the number of repeats (client-go's correlation), however the threads interleave.
 */
class EventRecorderE2ETest {
  private static final int THREADS = 8;
  private static final int PER_THREAD = 5;

  private final ControllerWorld world = new ControllerWorld();

  private List<Event> eventsOn(String name) {
    return world.client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  private void inParallel(Runnable task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        running.add(pool.submit(task));
      }
      for (Future<?> f : running) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** {@link EventRecorder#record} or {@link EventRecorder#recordInBackground}. */
  private interface Record {
    void record(HasMetadata object, String type, String reason, String message);
  }

  /**
   * From {@link #THREADS} threads, {@link #PER_THREAD} times each: one distinct Event and one
   * repeat of the same Event, on a new pool; returns the pool's name.
   */
  private String distinctAndRepeated(
      String prefix, java.util.function.Function<EventRecorder, Record> how) throws Exception {
    String name = world.poolName(prefix);
    MachinePool pool = world.createPool(name, List.of());
    Record record = how.apply(new EventRecorder(world.client, Clock.systemUTC()));
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    inParallel(
        () -> {
          for (int i = 0; i < PER_THREAD; i++) {
            record.record(pool, "Normal", "Distinct", "event " + n.incrementAndGet());
            record.record(pool, "Warning", "Repeated", "the same message");
          }
        });
    return name;
  }

  /** Every distinct Event was created; the repeats are one Event whose count is their number. */
  private void assertDistinctAndOneRepeated(String name) {
    List<Event> events = eventsOn(name);
    assertThat(events.stream().filter(e -> "Distinct".equals(e.getReason())))
        .hasSize(THREADS * PER_THREAD);
    assertThat(events.stream().filter(e -> "Repeated".equals(e.getReason())))
        .singleElement()
        .satisfies(e -> assertThat(e.getCount()).isEqualTo(THREADS * PER_THREAD));
  }

  /**
   * Fresh eyes (session 41): a {@code DrainBlocked} held in the background was written after the
   * drain's {@code DrainCompleted}, in the same second; {@link EventRecorder#writeHeldNow} writes
   * it first, keeping its timestamp, and leaves other reasons and objects to the hold.
   */
  @Test
  void heldProgressIsWrittenBeforeTheEventThatEndsIt() throws Exception {
    MachinePool pool = world.createPool(world.poolName("held"), List.of());
    MachinePool other = world.createPool(world.poolName("other"), List.of());
    try (EventRecorder recorder = new EventRecorder(world.client, Clock.systemUTC())) {
      recorder.recordInBackground(pool, "Normal", "DrainBlocked", "waiting for 1 Machine");
      recorder.recordInBackground(pool, "Normal", "Other", "not taken");
      recorder.recordInBackground(other, "Normal", "DrainBlocked", "another object's");
      recorder.writeHeldNow(pool, "DrainBlocked");
      assertThat(eventsOn(pool.getMetadata().getName()))
          .extracting(Event::getReason)
          .as("written by the call")
          .contains("DrainBlocked");
      assertThat(recorder.recordOnce(pool, "Normal", "DrainCompleted", "drained")).isTrue();
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> eventsOn(pool.getMetadata().getName()).size() == 3);
      List<String> byResourceVersion =
          eventsOn(pool.getMetadata().getName()).stream()
              .sorted(
                  java.util.Comparator.comparingLong(
                      e -> Long.parseLong(e.getMetadata().getResourceVersion())))
              .map(Event::getReason)
              .toList();
      assertThat(byResourceVersion.indexOf("DrainBlocked"))
          .as("DrainBlocked before DrainCompleted: %s", byResourceVersion)
          .isLessThan(byResourceVersion.indexOf("DrainCompleted"));
      assertThat(byResourceVersion)
          .containsExactlyInAnyOrder("DrainBlocked", "DrainCompleted", "Other");
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> eventsOn(other.getMetadata().getName()).size() == 1);
      assertThat(eventsOn(other.getMetadata().getName()))
          .extracting(Event::getReason)
          .containsExactly("DrainBlocked");
    }
  }

  @Test
  void concurrentRecordsOfDistinctAndRepeatedEvents() throws Exception {
    String name = distinctAndRepeated("events", r -> r::record);
    assertDistinctAndOneRepeated(name);
  }

  @Test
  void backgroundRecordsFromManyThreadsEndUpAsTheSameEventsAsSynchronousOnes() throws Exception {
    String name = distinctAndRepeated("background", r -> r::recordInBackground);
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(30))
        .untilAsserted(() -> assertDistinctAndOneRepeated(name));
  }

  @Test
  void recordOnceCreatesOneEventAndNeverCountsItsRepeatsWhileANewRecorderRecordsItAnew() {
    String name = world.poolName("once");
    MachinePool pool = world.createPool(name, List.of());
    EventRecorder recorder = new EventRecorder(world.client, Clock.systemUTC());
    for (int i = 0; i < 3; i++) {
      recorder.recordOnce(pool, "Normal", "Announced", "before the write");
    }
    assertThat(eventsOn(name))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getCount()).isOne();
              assertThat(e.getReportingComponent()).isEqualTo("ironcore-maintenance-controller");
              // which replica wrote it: this process ($POD_NAME, else host name and pid)
              assertThat(e.getReportingInstance())
                  .isEqualTo(dev.ironcore.maintenance.controller.Instance.name())
                  .isNotEqualTo("ironcore-maintenance-controller");
            });
    // a restarted process remembers nothing: one more Event, never a lost one
    new EventRecorder(world.client, Clock.systemUTC())
        .recordOnce(pool, "Normal", "Announced", "before the write");
    assertThat(eventsOn(name)).hasSize(2);
  }

  /**
   * Events are named by when they were recorded, to the nanosecond, as client-go names them: {@code
   * kubectl get events} lists an object's Events in that order, also one written after a later one
   * (fresh eyes, session 45: a DrainBlocked held for its burst was listed after the drain's
   * PoolDeleted); two at one instant (a fixed clock here) both land, a nanosecond apart.
   */
  @Test
  void eventsListInTheOrderTheyWereRecordedAndTwoAtOneInstantBothLand() {
    String name = world.poolName("named");
    MachinePool pool = world.createPool(name, List.of());
    java.time.Instant t = java.time.Instant.parse("2026-12-07T05:00:00.123456789Z");
    dev.ironcore.maintenance.testkit.SettableClock clock =
        new dev.ironcore.maintenance.testkit.SettableClock(t);
    EventRecorder recorder = new EventRecorder(world.client, clock);
    recorder.recordOnce(pool, "Normal", "First", "one");
    recorder.recordOnce(pool, "Normal", "SameInstant", "two");
    clock.set(t.minusMillis(300)); // recorded earlier, written last
    recorder.recordOnce(pool, "Normal", "Earlier", "three");
    assertThat(world.eventReasonsAsListed("default", name)).isEqualTo("Earlier First SameInstant ");
  }

  /**
   * An announcing event the API server cannot take (500 through a fault proxy, the loops' fail-fast
   * client) is reported to the caller, which holds its write, and is not left to a background retry
   * a crash would lose (fresh eyes: an {@code Evicted} event whose write timed out was retried in
   * the background while the DELETE went on; a kill lost it); once the API server answers it is
   * written, once.
   */
  @Test
  void recordOnceReportsAnEventTheApiServerCouldNotTake() throws Exception {
    String name = world.poolName("held");
    MachinePool pool = world.createPool(name, List.of());
    throughProxy(
        "held",
        0,
        (proxy, recorder) -> {
          proxy.failWith(500, java.time.Duration.ofMinutes(1));
          assertThat(recorder.recordOnce(pool, "Normal", "Announced", "before the write"))
              .isFalse();
          proxy.stopFailing();
          assertThat(eventsOn(name))
              .as("nothing written, nothing retried behind the caller")
              .isEmpty();
          assertThat(recorder.recordOnce(pool, "Normal", "Announced", "before the write")).isTrue();
          assertThat(recorder.recordOnce(pool, "Normal", "Announced", "before the write")).isTrue();
          assertThat(eventsOn(name))
              .singleElement()
              .satisfies(e -> assertThat(e.getCount()).isOne());
        });
  }

  /**
   * A create the API server stored although the client heard nothing (the proxy holds it past the
   * client's timeout, then forwards it, as a stalled etcd makes kube-apiserver answer 504 for a
   * write it commits later): the retry finds the stored Event instead of writing a second one
   * (fresh eyes: two {@code Evicted} events for one eviction after an etcd stall).
   */
  @Test
  void aRetryFindsTheEventAnUnansweredCreateStored() throws Exception {
    String name = world.poolName("late");
    MachinePool pool = world.createPool(name, List.of());
    throughProxy(
        "late",
        1_000,
        (proxy, recorder) -> {
          proxy.freeze(java.time.Duration.ofSeconds(3));
          assertThat(recorder.recordOnce(pool, "Normal", "Announced", "late")).isFalse();
          ControllerWorld.eventually().until(() -> eventsOn(name).size() == 1);
          assertThat(recorder.recordOnce(pool, "Normal", "Announced", "late")).isTrue();
          recorder.record(pool, "Normal", "Announced", "late");
          assertThat(eventsOn(name))
              .as("the stored one found, then counted")
              .singleElement()
              .satisfies(e -> assertThat(e.getCount()).isEqualTo(2));
        });
  }

  /** What a test does with a fault proxy and a recorder whose client goes through it. */
  private interface ProxiedRecorder {
    void run(dev.ironcore.maintenance.testkit.faults.FaultProxy proxy, EventRecorder recorder)
        throws Exception;
  }

  /**
   * Runs {@code test} with a recorder on a fail-fast client (no retries, as the loops' clients)
   * through a new fault proxy, as the controller's ServiceAccount with only the shipped RBAC (fresh
   * eyes: the retry of an unanswered create LISTed Events, which that RBAC does not grant, and the
   * Event was dropped).
   *
   * @param requestTimeoutMillis the client's request timeout; 0 for fabric8's default
   */
  private void throughProxy(String suffix, int requestTimeoutMillis, ProxiedRecorder test)
      throws Exception {
    java.nio.file.Path dir =
        java.nio.file.Files.createDirectories(
            java.nio.file.Path.of("target", "fault-tests", world.ns + "-" + suffix));
    try (dev.ironcore.maintenance.testkit.faults.FaultProxy proxy =
        dev.ironcore.maintenance.testkit.faults.FaultProxy.start(world.cp.kubeconfig(), dir)) {
      var config =
          io.fabric8.kubernetes.client.Config.fromKubeconfig(
              java.nio.file.Files.readString(proxy.kubeconfig()));
      config.setRequestRetryBackoffLimit(0);
      for (String overlay : java.util.List.of("namespaces", "rbac")) {
        world
            .cp
            .kubectl(
                "apply",
                "--server-side",
                "-k",
                dev.ironcore.maintenance.testkit.ManifestPaths.overlay(overlay).toString())
            .orThrow();
      }
      config.setImpersonateUsername(RbacE2ETest.SERVICE_ACCOUNT);
      if (requestTimeoutMillis > 0) {
        config.setRequestTimeout(requestTimeoutMillis);
      }
      try (var client = dev.ironcore.maintenance.api.json.JsonMappers.client(config)) {
        test.run(proxy, new EventRecorder(client, Clock.systemUTC()));
      }
    }
  }
}

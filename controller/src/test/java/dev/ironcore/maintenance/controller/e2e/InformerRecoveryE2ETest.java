package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static dev.ironcore.maintenance.controller.informers.SupervisedInformer.BRIEF_LOSS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ironcore.maintenance.api.cache.StreamedList;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.controller.informers.SupervisedInformer;
import dev.ironcore.maintenance.testkit.SettableClock;
import dev.ironcore.maintenance.testkit.faults.SilentTcpProxy;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * An informer whose watch dies in the middle of a drain is noticed and replaced; the drain in
 * progress completes, including events that happened while it was down. A loss shorter than {@link
 * SupervisedInformer#BRIEF_LOSS} keeps the process ready and is not logged as a warning.
 */
class InformerRecoveryE2ETest extends InProcessController {

  private SupervisedInformer<?> informer(String resource) {
    return controller.cache().informers().stream()
        .filter(i -> i.resource().equals(resource))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aKilledMachineInformerIsReplacedWithinBriefLossTheProcessStaysReadyAndTheDrainCompletes() {
    String pool = world.poolName("heal");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node", pool, Map.of());
    eventually().until(() -> controller.isReady() && hasHook(world.capiMachine("node")));

    world.deleteCapiMachine("node");
    eventually().until(() -> world.machine("vm-1").getMetadata().getDeletionTimestamp() != null);

    SupervisedInformer<?> machines = informer("machines");
    machines.kill();
    assertThat(machines.up()).isFalse();
    // the poollet releases vm-1 while no Machine informer runs: its deletion must not be lost
    world.poolletReleases("vm-1");
    AtomicBoolean unready = new AtomicBoolean();
    eventually()
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              unready.compareAndSet(false, !controller.isReady());
              return machines.restarts() >= 1 && machines.up();
            });
    assertThat(unready).as("ready while the informer was replaced within BRIEF_LOSS").isFalse();
    assertThat(controller.isHealthy()).isTrue();

    eventually().until(() -> !hasHook(world.capiMachine("node")));
    assertThat(world.pool(pool)).isNotNull();
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void aWatchLostBrieflyIsNeitherAWarningNorUnreadyALongerLossIsBoth() {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(SupervisedInformer.class);
    logger.addAppender(log);
    SettableClock clock = new SettableClock(Instant.parse("2026-12-04T10:00:00Z"));
    try (SupervisedInformer<Lease> leases =
        new SupervisedInformer<>(
            "test-leases",
            heartbeat -> world.client.leases().inNamespace(world.ns).runnableInformer(0),
            Map.of(),
            clock)) {
      clock.advance(Duration.ofMinutes(1));
      leases.check(); // before the first list: down since creation, not a loss
      assertThat(leases.upOrBrieflyLost()).as("not listed for a minute").isFalse();
      leases.start().join();
      checkUntilUp(leases);
      assertThat(messages(log)).isEmpty();

      // lost and replaced within BRIEF_LOSS, as when the API server ends a watch
      leases.kill();
      assertThat(leases.upOrBrieflyLost()).as("the watchdog has not seen it down yet").isTrue();
      leases.check(); // notes the loss and starts a new informer
      clock.advance(BRIEF_LOSS.minusMillis(1));
      assertThat(leases.upOrBrieflyLost()).isTrue();
      checkUntilUp(leases);
      assertThat(messages(log)).isEmpty();

      // lost for BRIEF_LOSS: the replacement is killed too and waits for its back-off
      leases.kill();
      leases.check();
      leases.kill();
      clock.advance(BRIEF_LOSS);
      assertThat(leases.upOrBrieflyLost()).isFalse();
      leases.check();
      assertThat(messages(log))
          .containsExactly("informer test-leases: not watching since 2026-12-04T10:01:04.999Z");
      clock.advance(Duration.ofMillis(1500));
      checkUntilUp(leases); // the check above started the third informer: its back-off had passed
      assertThat(messages(log))
          .containsExactly(
              "informer test-leases: not watching since 2026-12-04T10:01:04.999Z",
              "informer test-leases: watching again after 6500 ms");
      assertThat(leases.restarts()).isEqualTo(3);
    } finally {
      logger.detachAppender(log);
    }
  }

  /**
   * A watch whose connection a NAT or load balancer dropped without a reset (its idle timeout,
   * while the client's HTTP/2 connection stays busy) hears nothing more and its informer still
   * looks up: after {@link SupervisedInformer#SILENT_WATCH} of silence a probe watch from its last
   * resourceVersion gets the change it missed, and the informer is replaced; the new one lists what
   * the silent one missed (fresh eyes, session 47: the cache never changed again, the drain loop
   * logged "cache was behind" every second and no drain started; fabric8 alone notices after 6-11
   * min). A quiet watch is probed as well, and kept.
   */
  @Test
  void aWatchThatHearsNothingNotEvenABookmarkIsReplacedAndListsWhatItMissed() throws Exception {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(SupervisedInformer.class);
    logger.addAppender(log);
    SettableClock clock = new SettableClock(Instant.parse("2026-12-07T10:00:00Z"));
    ScheduledExecutorService busy = Executors.newSingleThreadScheduledExecutor();
    try (SilentTcpProxy proxy = world.proxy();
        KubernetesClient client =
            JsonMappers.client(
                Config.fromKubeconfig(
                    Files.readString(world.kubeconfigVia(proxy, Path.of("target", "silent")))));
        SupervisedInformer<Lease> leases =
            new SupervisedInformer<>(
                "test-leases",
                heartbeat ->
                    StreamedList.informer(
                        client,
                        Lease.class,
                        client.leases().inNamespace(world.ns),
                        500,
                        0,
                        heartbeat),
                Map.of(),
                clock)) {
      // the client's HTTP/2 connection kept busy, as the controller's reach probe keeps it
      busy.scheduleWithFixedDelay(
          () -> client.leases().inNamespace(world.ns).withName("none").get(),
          0,
          500,
          TimeUnit.MILLISECONDS);
      leases.start().join();
      checkUntilUp(leases);
      // a quiet watch is probed after SILENT_WATCH and kept: the probe finds no change
      clock.advance(SupervisedInformer.SILENT_WATCH);
      untilProbed(leases, 1);
      assertThat(leases.relists(SupervisedInformer.Relist.SILENT)).isZero();

      proxy.silenceIdle(Duration.ofSeconds(2));
      Thread.sleep(3000); // the watch's connection is idle: its next bytes are dropped
      world.client.leases().inNamespace(world.ns).resource(lease("missed")).create();
      eventually().until(() -> proxy.silenced() >= 1);
      Thread.sleep(2000);
      assertThat(leases.informer().getStore().getByKey(world.ns + "/missed"))
          .as("the silent watch did not see the new Lease")
          .isNull();
      assertThat(leases.up()).as("the informer looks up").isTrue();

      clock.advance(SupervisedInformer.PROBE_EVERY.minusSeconds(1));
      leases.check();
      assertThat(leases.probes()).as("not probed again within PROBE_EVERY").isEqualTo(1);
      clock.advance(Duration.ofSeconds(1));
      untilProbed(leases, 2);
      leases.check();
      assertThat(leases.relists(SupervisedInformer.Relist.SILENT))
          .as("confirmed only CONFIRM later")
          .isZero();
      clock.advance(SupervisedInformer.CONFIRM);
      leases.check();
      assertThat(leases.relists(SupervisedInformer.Relist.SILENT)).isEqualTo(1);
      assertThat(log.list.stream().map(ILoggingEvent::getFormattedMessage))
          .anyMatch(
              m ->
                  m.startsWith("informer test-leases: its watch heard nothing for 160 s while a")
                      && m.endsWith(
                          "got changes it has not heard since (its connection was dropped"
                              + " without a reset, e.g. by a NAT, load balancer or firewall):"
                              + " listing again and watching on a new connection"));
      checkUntilUp(leases);
      assertThat(leases.informer().getStore().getByKey(world.ns + "/missed")).isNotNull();
      assertThat(leases.restarts()).as("not counted as a stopped informer").isZero();
    } finally {
      busy.shutdownNow();
      logger.detachAppender(log);
    }
  }

  /** Runs the watchdog's check until {@code n} probes of the informer's watch were answered. */
  private static void untilProbed(SupervisedInformer<?> informer, long n) {
    eventually()
        .until(
            () -> {
              informer.check();
              return informer.probes() >= n;
            });
  }

  private static Lease lease(String name) {
    return new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .build();
  }

  /** Runs the watchdog's check until the informer is up, then once more. */
  private static void checkUntilUp(SupervisedInformer<?> informer) {
    eventually()
        .until(
            () -> {
              informer.check();
              return informer.up();
            });
    informer.check();
  }

  private static List<String> messages(ListAppender<ILoggingEvent> log) {
    return log.list.stream()
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.startsWith("informer test-leases:") && m.contains("watching"))
        .toList();
  }
}

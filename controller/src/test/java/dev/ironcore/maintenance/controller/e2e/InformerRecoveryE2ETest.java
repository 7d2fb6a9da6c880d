package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static dev.ironcore.maintenance.controller.informers.SupervisedInformer.BRIEF_LOSS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ironcore.maintenance.controller.informers.SupervisedInformer;
import dev.ironcore.maintenance.testkit.SettableClock;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
            () -> world.client.leases().inNamespace(world.ns).runnableInformer(0),
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

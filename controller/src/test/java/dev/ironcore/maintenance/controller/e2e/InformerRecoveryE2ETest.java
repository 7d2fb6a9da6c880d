package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ironcore.maintenance.controller.informers.SupervisedInformer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * An informer whose watch dies in the middle of a drain is noticed (not ready) and replaced; the
 * drain in progress completes, including events that happened while it was down.
 */
class InformerRecoveryE2ETest extends InProcessController {

  private SupervisedInformer<?> informer(String resource) {
    return controller.cache().informers().stream()
        .filter(i -> i.resource().equals(resource))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aKilledMachineInformerMakesTheControllerUnreadyUntilReplacedAndTheDrainCompletes() {
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
    assertThat(controller.isReady()).isFalse();
    // the poollet releases vm-1 while no Machine informer runs: its deletion must not be lost
    world.poolletReleases("vm-1");
    eventually().until(controller::isReady);
    assertThat(machines.restarts()).isGreaterThanOrEqualTo(1);
    assertThat(controller.isHealthy()).isTrue();

    eventually().until(() -> !hasHook(world.capiMachine("node")));
    assertThat(world.pool(pool)).isNotNull();
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void onlyALostWatchIsLoggedAsNotWatchingAndThenAsWatchingAgain() {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(SupervisedInformer.class);
    logger.addAppender(log);
    try (SupervisedInformer<Lease> leases =
        new SupervisedInformer<>(
            "test-leases",
            () -> world.client.leases().inNamespace(world.ns).runnableInformer(0),
            Map.of(),
            Clock.systemUTC())) {
      leases.check(); // before the first list: down since creation, not a loss
      leases.start().join();
      checkUntilUp(leases);
      assertThat(messages(log)).isEmpty();

      leases.kill();
      leases.check();
      assertThat(messages(log)).containsExactly("informer test-leases: not watching");
      checkUntilUp(leases);
      assertThat(messages(log))
          .contains("informer test-leases: watching again")
          .filteredOn(m -> m.endsWith("watching again"))
          .hasSize(1);
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

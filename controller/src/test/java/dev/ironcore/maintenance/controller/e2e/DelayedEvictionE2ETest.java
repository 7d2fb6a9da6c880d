package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.controller.ControllerApp;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Delayed eviction through the real API server (v1alpha2 stored, our conversion webhook running):
 * Machines tolerating a NoExecute taint with {@code tolerationSeconds}, counted from the taint's
 * {@code timeAdded} (written here as the mutating webhook would).
 */
class DelayedEvictionE2ETest extends InProcessController {
  private static final String V2_MACHINES = "machines.v1alpha2.compute.ironcore.dev";
  private static final String V2_POOLS = "machinepools.v1alpha2.compute.ironcore.dev";

  private void machine(String name, String pool, String toleration) {
    world
        .cp
        .kubectlTool()
        .runWithInput(
            """
            apiVersion: compute.ironcore.dev/v1alpha2
            kind: Machine
            metadata:
              name: %s
              namespace: %s
              finalizers: [%s]
            spec:
              machineClassRef: {name: x3-small}
              machinePoolRef: {name: %s}
              tolerations: [%s]
            """
                .formatted(name, world.ns, Names.POOLLET_FINALIZER, pool, toleration),
            "apply",
            "-f",
            "-")
        .orThrow();
  }

  /** Adds NoExecute taint {@code k} with {@code timeAdded} = now (whole seconds); returns it. */
  private Instant taint(String pool) {
    Instant added = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    world
        .cp
        .kubectl(
            "patch",
            V2_POOLS,
            pool,
            "--type=json",
            "-p",
            "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"k\",\"effect\":\"NoExecute\",\"timeAdded\":\""
                + added
                + "\"}]}]")
        .orThrow();
    return added;
  }

  private Instant deletedAt(String name) {
    Machine m = world.machine(name);
    String ts = m.getMetadata().getDeletionTimestamp();
    return ts == null ? null : Instant.parse(ts);
  }

  private static String tolerates(Long seconds) {
    return "{key: k, operator: Exists, effect: NoExecute"
        + (seconds == null ? "" : ", tolerationSeconds: " + seconds)
        + "}";
  }

  @Test
  void fiveSecondsMeansAfterFiveSecondsZeroAtOnceNoneNever() {
    String pool = world.poolName("delay");
    world.createPool(pool, List.of());
    machine("vm-5s", pool, tolerates(5L));
    machine("vm-0s", pool, tolerates(0L));
    machine("vm-forever", pool, tolerates(null));
    machine("vm-huge", pool, tolerates(Long.MAX_VALUE));
    Instant added = taint(pool);

    eventually().until(() -> deletedAt("vm-0s") != null);
    // not before the deadline: watched until 1 s before it
    Duration untilJustBefore = Duration.between(Instant.now(), added.plusSeconds(4));
    if (!untilJustBefore.isNegative()) {
      await()
          .during(untilJustBefore)
          .atMost(untilJustBefore.plusSeconds(5))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> deletedAt("vm-5s") == null);
    }
    eventually().until(() -> deletedAt("vm-5s") != null);
    assertThat(deletedAt("vm-5s")).isAfterOrEqualTo(added.plusSeconds(5));
    assertThat(deletedAt("vm-forever")).isNull();
    assertThat(deletedAt("vm-huge")).isNull();
    assertThat(evicted())
        .filteredOn(e -> e.getInvolvedObject().getName().equals("vm-5s"))
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("tolerationSeconds"));
    assertThat(
            world
                .cp
                .kubectl(
                    "get",
                    V2_MACHINES,
                    "-n",
                    world.ns,
                    "vm-huge",
                    "-o",
                    "jsonpath={.spec.tolerations[0].tolerationSeconds}")
                .orThrow()
                .stdout())
        .isEqualTo("9223372036854775807");
  }

  @Test
  void aRestartKeepsTheDeadlineFromTimeAdded() throws Exception {
    String pool = world.poolName("restart");
    world.createPool(pool, List.of());
    machine("vm-10s", pool, tolerates(10L));
    Instant added = taint(pool);
    await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(added.plusSeconds(6)));
    controller.close();
    Instant restarted = Instant.now();
    controller = new ControllerApp(client(), options()).start();
    eventually().until(() -> deletedAt("vm-10s") != null);
    Instant deleted = deletedAt("vm-10s");
    assertThat(deleted).isAfterOrEqualTo(added.plusSeconds(10));
    assertThat(deleted)
        .as("counted from timeAdded, not from the restart at %s", restarted)
        .isBefore(restarted.plusSeconds(10));
  }

  @Test
  void removingTheTaintBeforeTheDeadlineCancelsTheEviction() {
    String pool = world.poolName("cancel");
    world.createPool(pool, List.of());
    machine("vm-3s", pool, tolerates(3L));
    Instant added = taint(pool);
    world
        .cp
        .kubectl(
            "patch",
            V2_POOLS,
            pool,
            "--type=json",
            "-p",
            "[{\"op\":\"remove\",\"path\":\"/spec/taints\"}]")
        .orThrow();
    Duration pastDeadline = Duration.between(Instant.now(), added.plusSeconds(6));
    await()
        .during(pastDeadline.isNegative() ? Duration.ZERO : pastDeadline)
        .atMost(pastDeadline.plusSeconds(10))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> deletedAt("vm-3s") == null);
  }

  private List<Event> evicted() {
    return world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
        .filter(ev -> Names.EVICTED_REASON.equals(ev.getReason()))
        .toList();
  }
}

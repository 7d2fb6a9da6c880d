package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.taintStrings;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The drain and pool-deletion loops against a real kube-apiserver; the test acts as poollet and
 * CAPI.
 */
class DrainE2ETest extends InProcessController {

  @Test
  void deletingTheCapiMachineDrainsThePoolInOrderThenDeletesIt() {
    String pool = world.poolName("pool-a");
    Taint gpu = new Taint("gpu", "a100", "NoSchedule");
    world.createPool(pool, List.of(), gpu);
    world.createMachine("vm-1", pool);
    world.createMachine("vm-2", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node-a", pool, Map.of());

    eventually()
        .until(
            () ->
                hasHook(world.capiMachine("node-a"))
                    && world
                        .capiMachine("node-a")
                        .getMetadata()
                        .getFinalizers()
                        .contains(Names.CLEANUP_FINALIZER));
    world.deleteCapiMachine("node-a");

    eventually()
        .untilAsserted(
            () ->
                assertThat(taintStrings(world.pool(pool)))
                    .containsExactlyInAnyOrder(
                        "gpu:NoSchedule",
                        "maintenance.ironcore.dev:NoSchedule",
                        "maintenance.ironcore.dev:NoExecute"));
    eventually()
        .until(
            () ->
                world.machine("vm-1").getMetadata().getDeletionTimestamp() != null
                    && world.machine("vm-2").getMetadata().getDeletionTimestamp() != null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(hasHook(world.capiMachine("node-a")))
        .as("hook held while vm-1 and vm-2 shut down")
        .isTrue();

    world.poolletReleases("vm-1");
    eventually().until(() -> world.machine("vm-1") == null);
    assertThat(hasHook(world.capiMachine("node-a"))).as("hook held while vm-2 shuts down").isTrue();

    world.poolletReleases("vm-2");
    eventually().until(() -> !hasHook(world.capiMachine("node-a")));
    assertThat(world.machine("vm-2")).isNull();
    assertThat(world.pool(pool)).as("pool kept until CAPI is done with the node").isNotNull();
    assertThat(world.pool(pool).getMetadata().getDeletionTimestamp()).isNull();

    world.capiFinishes("node-a");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node-a") == null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp())
        .as("tolerating machine untouched")
        .isNull();
    // kubectl get events lists by name: the CAPI Machine's Events in the order they happened
    // (fresh eyes, session 45: PoolDeleted was listed first; their timestamps are whole seconds)
    eventually()
        .untilAsserted(
            () ->
                assertThat(world.eventReasonsAsListed(world.ns, "node-a"))
                    .matches("DrainStarted (DrainBlocked )+DrainCompleted PoolDeleted "));
  }

  @Test
  void aCapiMachineWithoutNodeRefIsReleasedWithoutTouchingAnyPool() {
    String pool = world.poolName("pool-untouched");
    String rv = world.createPool(pool, List.of()).getMetadata().getResourceVersion();
    world.createCapiMachine("no-node", null, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("no-node")));
    world.deleteCapiMachine("no-node");
    eventually()
        .until(
            () -> {
              var m = world.capiMachine("no-node");
              return m != null
                  && !hasHook(m)
                  && !m.getMetadata().getFinalizers().contains(Names.CLEANUP_FINALIZER);
            });
    world.capiFinishes("no-node");
    eventually().until(() -> world.capiMachine("no-node") == null);
    assertThat(world.pool(pool).getMetadata().getResourceVersion()).isEqualTo(rv);
  }

  @Test
  void aCapiMachineWhosePoolDoesNotExistIsReleased() {
    world.createCapiMachine("ghost", world.poolName("no-such-pool"), Map.of());
    eventually().until(() -> hasHook(world.capiMachine("ghost")));
    world.deleteCapiMachine("ghost");
    eventually().until(() -> !hasHook(world.capiMachine("ghost")));
    world.capiFinishes("ghost");
    eventually().until(() -> world.capiMachine("ghost") == null);
  }

  /**
   * A {@code nodeRef} no object can be named (fresh eyes: {@code pool?x=1} was put into the URL as
   * it is, read the pool {@code pool} and retried "cache was behind" every second for good; {@code
   * ..} got 400 and retried for good): no such pool exists, so the hook is released and the real
   * pool is never touched.
   */
  @Test
  void aNodeRefThatCannotNameAPoolIsReleasedWithoutReadingAnother() {
    String pool = world.poolName("real");
    world.createPool(pool, List.of());
    String rv = world.pool(pool).getMetadata().getResourceVersion();
    for (String capi : List.of("query", "dots")) {
      world.createCapiMachine(capi, capi.equals("query") ? pool + "?x=1" : "..", Map.of());
      eventually().until(() -> hasHook(world.capiMachine(capi)));
      world.deleteCapiMachine(capi);
      eventually().until(() -> !hasHook(world.capiMachine(capi)));
    }
    assertThat(world.pool(pool).getMetadata().getResourceVersion()).isEqualTo(rv);
  }

  /**
   * The drained pool is deleted by hand while CAPI still works on the node, and a pool of the same
   * name is created again (a poollet registering anew) with a Machine on it: once CAPI is done,
   * that pool was never drained, so it is kept (fresh eyes: it was deleted with its Machine never
   * evicted, and a misleading DrainHookRemoved blamed someone else for our own hook release).
   */
  @Test
  void aPoolReCreatedAfterTheDeletionIsKeptWithAWarning() throws Exception {
    String pool = world.poolName("pool-again");
    world.createPool(pool, List.of());
    world.createCapiMachine("node-again", pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-again")));
    world.deleteCapiMachine("node-again");
    eventually().until(() -> !hasHook(world.capiMachine("node-again")));

    world.ironcore.resources(MachinePool.class).withName(pool).delete();
    eventually().until(() -> world.pool(pool) == null);
    java.time.Instant deleted =
        java.time.Instant.parse(
            world.capiMachine("node-again").getMetadata().getDeletionTimestamp());
    while (!java.time.Instant.now().isAfter(deleted.plusSeconds(1))) {
      Thread.sleep(100); // whole seconds: the new pool's creationTimestamp must come later
    }
    world.createPool(pool, List.of());
    world.createMachine("vm-new", pool);

    world.capiFinishes("node-again");
    eventually().until(() -> world.capiMachine("node-again") == null);
    assertThat(world.pool(pool)).as("the re-created pool is kept").isNotNull();
    assertThat(world.pool(pool).getMetadata().getDeletionTimestamp()).isNull();
    assertThat(world.machine("vm-new").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(
            world.eventsJsonpath(
                "node-again", "PoolKept", "{range .items[*]}{.type} {.message}{end}"))
        .startsWith("Warning MachinePool " + pool + " was created at ")
        .contains("after this CAPI Machine's deletion, and never drained: not deleting it");
    assertThat(world.eventsJsonpath("node-again", "DrainHookRemoved", "{.items[*].message}"))
        .isEmpty();
    assertThat(world.eventsJsonpath("node-again", "PoolDeleted", "{.items[*].message}")).isEmpty();
  }

  /**
   * The deleting CAPI Machine's {@code status.nodeRef} moves to another pool while the first pool's
   * drain waits for a Machine: the second pool's drain is announced with its own {@code
   * DrainStarted} (fresh eyes: one was recorded per CAPI Machine, so the second pool was tainted
   * and drained without a word on the CAPI Machine).
   */
  @Test
  void aNodeRefMovedDuringTheDrainAnnouncesTheOtherPoolsDrain() {
    String first = world.poolName("pool-first");
    String second = world.poolName("pool-second");
    world.createPool(first, List.of());
    world.createPool(second, List.of());
    world.createMachine("vm-first", first);
    world.createMachine("vm-second", second);
    world.createCapiMachine("node-moved", first, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-moved")));
    world.deleteCapiMachine("node-moved");
    eventually()
        .until(() -> world.machine("vm-first").getMetadata().getDeletionTimestamp() != null);
    assertThat(hasHook(world.capiMachine("node-moved"))).as("held by vm-first").isTrue();

    world.setNodeRef("node-moved", second);
    eventually()
        .untilAsserted(
            () ->
                assertThat(startedMessages("node-moved"))
                    .contains("tainting pool " + first + " with ")
                    .contains("tainting pool " + second + " with "));
    assertThat(taintStrings(world.pool(second))).contains("maintenance.ironcore.dev:NoExecute");
    eventually()
        .until(() -> world.machine("vm-second").getMetadata().getDeletionTimestamp() != null);

    // moved back (fresh eyes: the first pool's drain went on without a DrainStarted)
    world.setNodeRef("node-moved", first);
    eventually()
        .untilAsserted(
            () ->
                assertThat(startedMessages("node-moved"))
                    .contains("pool " + first + " already carries the maintenance.ironcore.dev"));
    world.poolletReleases("vm-first");
    eventually().until(() -> !hasHook(world.capiMachine("node-moved")));
    world.poolletReleases("vm-second");
  }

  /**
   * A deleting CAPI Machine whose {@code status.nodeRef} was written by hand onto a pool another,
   * live CAPI Machine uses: the drain holds its pre-drain hook with a {@code PoolShared} Warning
   * and taints, evicts and deletes nothing (fresh eyes, session 32: that pool was tainted, its
   * Machine evicted and the pool deleted under the live CAPI Machine). Corrected, the drain goes
   * on.
   */
  @Test
  void aPoolThatALiveCapiMachineAlsoNamesIsNeitherDrainedNorDeleted() {
    String shared = world.poolName("pool-shared");
    String own = world.poolName("pool-own");
    world.createPool(shared, List.of());
    world.createPool(own, List.of());
    world.createMachine("vm-shared", shared);
    world.createCapiMachine("node-live", shared, Map.of());
    world.createCapiMachine("node-leaving", own, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-leaving")));
    world.setNodeRef("node-leaving", shared);
    world.deleteCapiMachine("node-leaving");

    eventually()
        .untilAsserted(
            () ->
                assertThat(
                        world.eventsJsonpath(
                            "node-leaving",
                            "PoolShared",
                            "{range .items[*]}{.type} {.message}{end}"))
                    .startsWith(
                        "Warning not draining pool "
                            + shared
                            + ": it is also the status.nodeRef of CAPI Machine "
                            + world.ns
                            + "/node-live, not being deleted"));
    eventually().until(() -> "DrainHeld".equals(maintenanceReason(shared)));
    assertThat(taintStrings(world.pool(shared))).isEmpty();
    assertThat(world.machine("vm-shared").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(hasHook(world.capiMachine("node-leaving"))).as("hook held").isTrue();

    world.setNodeRef("node-leaving", own);
    eventually().until(() -> !hasHook(world.capiMachine("node-leaving")));
    world.capiFinishes("node-leaving");
    eventually().until(() -> world.capiMachine("node-leaving") == null && world.pool(own) == null);
    assertThat(world.pool(shared)).isNotNull();
    assertThat(taintStrings(world.pool(shared))).isEmpty();
    assertThat(world.machine("vm-shared").getMetadata().getDeletionTimestamp()).isNull();
    // the held pool's condition does not claim a drain once nothing drains it
    eventually().until(() -> "DrainCancelled".equals(maintenanceReason(shared)));
  }

  /** The reason of the pool's Maintenance condition, or null. */
  private String maintenanceReason(String pool) {
    var status = world.pool(pool).getStatus();
    var c =
        dev.ironcore.maintenance.api.compute.Conditions.find(
            status == null ? null : status.getConditions(), "Maintenance");
    return c == null ? null : c.getReason();
  }

  private String startedMessages(String capiMachine) {
    return world.eventsJsonpath(
        capiMachine, "DrainStarted", "{range .items[*]}{.message}{\"\\n\"}{end}");
  }

  @Test
  void machinesOfOtherPoolsAreNeverTouched() {
    String drained = world.poolName("drained");
    String other = world.poolName("other");
    world.createPool(drained, List.of());
    world.createPool(other, List.of());
    String rv = world.createMachine("elsewhere", other).getMetadata().getResourceVersion();
    world.createCapiMachine("node-d", drained, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-d")));
    world.deleteCapiMachine("node-d");
    eventually().until(() -> !hasHook(world.capiMachine("node-d")));
    world.capiFinishes("node-d");
    eventually().until(() -> world.pool(drained) == null && world.capiMachine("node-d") == null);
    assertThat(world.machine("elsewhere").getMetadata().getResourceVersion()).isEqualTo(rv);
    assertThat(world.pool(other).getSpec().taintsOrEmpty()).isEmpty();
  }

  @Test
  void finalizersOfOthersOnTheCapiMachineAndThePoolSurviveAllOurWrites() {
    String pool = world.poolName("kept");
    world.createPool(pool, List.of("example.com/pool-keeper"));
    world.createMachine("vm-k", pool);
    world.createCapiMachine("node-k", pool, Map.of(), "example.com/keeper");
    eventually().until(() -> hasHook(world.capiMachine("node-k")));
    world.deleteCapiMachine("node-k");
    eventually().until(() -> world.machine("vm-k").getMetadata().getDeletionTimestamp() != null);
    world.poolletReleases("vm-k");
    eventually().until(() -> !hasHook(world.capiMachine("node-k")));
    world.capiFinishes("node-k");
    eventually()
        .until(
            () ->
                !world
                    .capiMachine("node-k")
                    .getMetadata()
                    .getFinalizers()
                    .contains(Names.CLEANUP_FINALIZER));
    assertThat(world.capiMachine("node-k").getMetadata().getFinalizers())
        .containsExactly("example.com/keeper");
    assertThat(world.pool(pool).getMetadata().getDeletionTimestamp())
        .as("pool deleted")
        .isNotNull();
    assertThat(world.pool(pool).getMetadata().getFinalizers())
        .containsExactly("example.com/pool-keeper");
  }
}

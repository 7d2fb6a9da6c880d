package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.taintStrings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.PoolConditionWriter;
import dev.ironcore.maintenance.controller.drain.DrainPolicy;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A drain that ends unfinished, against a real kube-apiserver with {@code
 * --capi-machine-selector=role=ironcore --max-concurrent-drains=1}: a queued drain whose CAPI
 * Machine is deselected with {@code kubectl label ... role-}, a running drain whose CAPI Machine is
 * deleted by someone else removing the finalizers, and a pool left {@code DrainQueued} across a
 * restart. Each pool's {@code Maintenance} condition becomes {@code DrainCancelled}, with a {@code
 * DrainCancelled} event on the pool; taints a drain added stay. The test acts as the user, the
 * machinepoollet and CAPI.
 */
class DrainCancelE2ETest extends InProcessController {
  private static final Map<String, String> SELECTED = Map.of("role", "ironcore");

  @Override
  protected ControllerOptions options() {
    return super.options()
        .withCapiMachineSelector("role=ironcore")
        .withDrainPolicy(DrainPolicy.defaults().withMaxConcurrentDrains(1));
  }

  private Condition maintenance(String pool) {
    MachinePool p = world.pool(pool);
    return p == null || p.getStatus() == null
        ? null
        : Conditions.find(p.getStatus().getConditions(), "Maintenance");
  }

  private String reason(String pool) {
    Condition c = maintenance(pool);
    return c == null ? null : c.getReason();
  }

  private List<Event> poolEvents(String pool) {
    return world.client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> pool.equals(e.getInvolvedObject().getName()))
        .filter(e -> "DrainCancelled".equals(e.getReason()))
        .toList();
  }

  @Test
  void aDeselectedQueuedDrainAndAForceDeletedRunningDrainAreCancelledAlsoAcrossARestart()
      throws Exception {
    String poolE = world.poolName("pool-e");
    String poolF = world.poolName("pool-f");
    world.createPool(poolE, List.of());
    world.createPool(poolF, List.of());
    world.createMachine("vm-e", poolE);
    world.createMachine("vm-f", poolF);
    world.createCapiMachine("node-e", poolE, SELECTED);
    world.createCapiMachine("node-f", poolF, SELECTED);
    eventually().until(() -> hasHook(world.capiMachine("node-e")));
    eventually().until(() -> hasHook(world.capiMachine("node-f")));

    world.deleteCapiMachine("node-e");
    eventually().until(() -> "Draining".equals(reason(poolE)));
    world.deleteCapiMachine("node-f");
    eventually().until(() -> "DrainQueued".equals(reason(poolF)));

    // the tester's step: the user deselects the queued CAPI Machine
    world
        .cp
        .kubectl("label", "machines.cluster.x-k8s.io", "-n", world.ns, "node-f", "role-")
        .orThrow();
    eventually().until(() -> !hasHook(world.capiMachine("node-f")));
    world.capiFinishes("node-f");
    eventually().until(() -> world.capiMachine("node-f") == null);
    eventually()
        .untilAsserted(
            () -> {
              Condition c = maintenance(poolF);
              assertThat(c.getReason()).isEqualTo("DrainCancelled");
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getMessage())
                  .contains("cancelled while DrainQueued")
                  .contains("no longer selected by --capi-machine-selector")
                  .contains("the pool was not tainted");
              assertThat(poolEvents(poolF))
                  .singleElement()
                  .satisfies(e -> assertThat(e.getType()).isEqualTo("Normal"));
            });
    assertThat(taintStrings(world.pool(poolF))).isEmpty();
    assertThat(
            world
                .cp
                .kubectl(
                    "get",
                    "machinepools.compute.ironcore.dev",
                    poolF,
                    "-o",
                    "jsonpath={.status.conditions[?(@.type==\"Maintenance\")].reason}")
                .orThrow()
                .stdout())
        .as("what kubectl shows")
        .isEqualTo("DrainCancelled");
    assertThat(reason(poolE)).as("the running drain goes on").isEqualTo("Draining");

    // someone else force-deletes the draining CAPI Machine: both finalizers removed
    world.removeFinalizer(
        world
            .client
            .resources(dev.ironcore.maintenance.api.capi.CapiMachine.class)
            .inNamespace(world.ns)
            .withName("node-e"),
        Names.CLEANUP_FINALIZER);
    world.capiFinishes("node-e");
    eventually().until(() -> world.capiMachine("node-e") == null);
    eventually()
        .untilAsserted(
            () -> {
              Condition c = maintenance(poolE);
              assertThat(c.getReason()).isEqualTo("DrainCancelled");
              assertThat(c.getMessage())
                  .contains("cancelled while Draining")
                  .contains(Names.MAINTENANCE_TAINT_KEY + " taints stay");
              assertThat(poolEvents(poolE))
                  .singleElement()
                  .satisfies(e -> assertThat(e.getType()).isEqualTo("Warning"));
            });
    assertThat(taintStrings(world.pool(poolE)))
        .as("taints the drain added are kept")
        .contains(
            Names.MAINTENANCE_TAINT_KEY + ":NoSchedule",
            Names.MAINTENANCE_TAINT_KEY + ":NoExecute");

    // restart: a pool left DrainQueued while the controller was down (e.g. by an older version)
    controller.close();
    String poolG = world.poolName("pool-g");
    world.createPool(poolG, List.of());
    new PoolConditionWriter(world.ironcore, Clock.systemUTC())
        .set(poolG, "Maintenance", "False", "DrainQueued", "position 2 in the queue");
    controller = new ControllerApp(client(), options()).start();
    eventually()
        .untilAsserted(
            () -> {
              assertThat(reason(poolG)).isEqualTo("DrainCancelled");
              assertThat(maintenance(poolG).getMessage())
                  .contains("no deleting CAPI Machine references it");
              assertThat(poolEvents(poolG)).hasSize(1);
            });
    assertThat(poolEvents(poolF)).as("no second event after the restart").hasSize(1);

    // a new drain of the pool whose cancelled drain left its taints: no taint write comes, yet
    // the CAPI Machine still shows when its drain started (the slot is free: pool-e's drain ended)
    world.createCapiMachine("node-e2", poolE, SELECTED);
    eventually().until(() -> hasHook(world.capiMachine("node-e2")));
    world.deleteCapiMachine("node-e2");
    eventually()
        .untilAsserted(
            () -> {
              assertThat(reason(poolE)).isEqualTo("Draining");
              assertThat(
                      world
                          .eventsJsonpath(
                              "node-e2",
                              "DrainStarted",
                              "{range .items[*]}{.message}{\"\\n\"}{end}")
                          .lines())
                  .singleElement()
                  .asString()
                  .startsWith(
                      "pool "
                          + poolE
                          + " already carries the "
                          + Names.MAINTENANCE_TAINT_KEY
                          + " taints");
            });
  }

  /**
   * Someone removes only our finalizer from a draining CAPI Machine (CAPI's stays): the drain is
   * cancelled and the pre-drain hook released, so CAPI is not held for good by a hook nothing acts
   * on any more (fresh eyes: still there 16 minutes later, no alert).
   */
  @Test
  void aDrainWhoseFinalizerSomeoneRemovedReleasesItsHook() {
    String pool = world.poolName("pool-h");
    world.createPool(pool, List.of());
    world.createMachine("vm-h", pool);
    world.createCapiMachine("node-h", pool, SELECTED);
    eventually().until(() -> hasHook(world.capiMachine("node-h")));
    world.deleteCapiMachine("node-h");
    eventually().until(() -> "Draining".equals(reason(pool)));

    world.removeFinalizer(
        world
            .client
            .resources(dev.ironcore.maintenance.api.capi.CapiMachine.class)
            .inNamespace(world.ns)
            .withName("node-h"),
        Names.CLEANUP_FINALIZER);

    eventually().until(() -> !hasHook(world.capiMachine("node-h")));
    assertThat(world.capiMachine("node-h").getMetadata().getDeletionTimestamp()).isNotNull();
    eventually()
        .untilAsserted(
            () -> {
              assertThat(
                      world.eventsJsonpath(
                          "node-h", "DrainCancelled", "{range .items[*]}{.type} {.message}{end}"))
                  .startsWith(
                      "Warning finalizer "
                          + Names.CLEANUP_FINALIZER
                          + " was removed during the deletion, not by this controller: drain"
                          + " cancelled, releasing the pre-drain hook")
                  .endsWith(
                      "; its "
                          + Names.MAINTENANCE_TAINT_KEY
                          + " taints stay: remove them if the node stays in service");
              assertThat(reason(pool)).isEqualTo("DrainCancelled");
              assertThat(maintenance(pool).getMessage())
                  .contains(Names.MAINTENANCE_TAINT_KEY + " taints stay");
            });

    // the operator does what the message asks (as with kubectl): it then says so (fresh eyes: it
    // kept asking, for good), with no further event
    int events = poolEvents(pool).size();
    world.kubectlPatchPool(pool, "[{\"op\":\"remove\",\"path\":\"/spec/taints\"}]");
    eventually()
        .untilAsserted(
            () ->
                assertThat(maintenance(pool).getMessage())
                    .contains("cancelled while Draining")
                    .endsWith(" taints were removed since: nothing left to do"));
    assertThat(reason(pool)).isEqualTo("DrainCancelled");
    assertThat(poolEvents(pool)).as("no further event").hasSize(events);
  }
}

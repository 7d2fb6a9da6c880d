package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.drain.DrainPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code --max-concurrent-drains=1} against a real kube-apiserver: three CAPI Machines deleted
 * together drain one pool at a time, in deletion order, also across a controller restart. The test
 * acts as the machinepoollet and as CAPI.
 */
class DrainBudgetE2ETest extends InProcessController {

  @Override
  protected ControllerOptions options() {
    return super.options().withDrainPolicy(DrainPolicy.defaults().withMaxConcurrentDrains(1));
  }

  private static boolean maintenanceTainted(MachinePool p) {
    return p != null
        && p.getSpec().taintsOrEmpty().stream()
            .anyMatch(t -> Names.MAINTENANCE_TAINT_KEY.equals(t.getKey()));
  }

  @Test
  void oneDrainAtATimeInDeletionOrderAcrossARestart() throws Exception {
    List<String> pools = new ArrayList<>();
    List<String> nodes = List.of("node-1", "node-2", "node-3");
    for (int i = 1; i <= 3; i++) {
      String pool = world.poolName("budget-" + i);
      pools.add(pool);
      world.createPool(pool, List.of());
      world.createMachine("vm-" + i, pool);
      world.createCapiMachine(nodes.get(i - 1), pool, Map.of());
    }
    eventually().until(() -> nodes.stream().allMatch(n -> hasHook(world.capiMachine(n))));
    // deletionTimestamp has second precision: node-3 a second earlier, node-1 and node-2 together
    // (same second or not, the name breaks the tie), so deletion order is not name order
    world.deleteCapiMachine("node-3");
    Thread.sleep(1100);
    world.deleteCapiMachine("node-1");
    world.deleteCapiMachine("node-2");
    List<String> deletionOrder = List.of("node-3", "node-1", "node-2");
    eventually()
        .untilAsserted(
            () -> {
              MachinePool last = world.pool(pools.get(1));
              var c =
                  Conditions.find(
                      last.getStatus() == null ? null : last.getStatus().getConditions(),
                      "Maintenance");
              assertThat(c).isNotNull();
              assertThat(c.getReason()).isEqualTo("DrainQueued");
            });
    // the queued CAPI Machine says so in kubectl describe too
    eventually()
        .untilAsserted(
            () ->
                assertThat(world.eventsJsonpath("node-2", "DrainQueued", "{.items[*].message}"))
                    .startsWith("pool " + pools.get(1) + ": waiting for a free drain slot"));

    Set<String> completed = new LinkedHashSet<>();
    int maxTainted = 0;
    long samples = 0;
    boolean restarted = false;
    Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
    while (completed.size() < nodes.size() && Instant.now().isBefore(deadline)) {
      List<MachinePool> live =
          world.client.resources(MachinePool.class).list().getItems().stream()
              .filter(p -> pools.contains(p.getMetadata().getName()))
              .toList();
      int tainted = (int) live.stream().filter(DrainBudgetE2ETest::maintenanceTainted).count();
      maxTainted = Math.max(maxTainted, tainted);
      samples++;
      for (int i = 0; i < nodes.size(); i++) {
        Machine vm = world.machine("vm-" + (i + 1));
        if (vm != null && vm.getMetadata().getDeletionTimestamp() != null) {
          world.poolletReleases("vm-" + (i + 1));
        }
        CapiMachine capi = world.capiMachine(nodes.get(i));
        if (capi == null || !hasHook(capi)) {
          if (completed.add(nodes.get(i)) && capi != null) {
            world.capiFinishes(nodes.get(i));
          }
        }
      }
      if (!restarted && completed.size() == 1) {
        controller.close();
        controller = new ControllerApp(client(), options()).start();
        restarted = true;
      }
      Thread.sleep(100);
    }
    assertThat(completed)
        .as("all three drained, in deletion order")
        .containsExactlyElementsOf(deletionOrder);
    assertThat(restarted).isTrue();
    assertThat(maxTainted).as("pools tainted at once, over %d samples", samples).isEqualTo(1);
    eventually().until(() -> pools.stream().allMatch(p -> world.pool(p) == null));
    // the last one waited in the queue, then this drain tainted it: one DrainStarted, its own (the
    // decision's "tainted while queued" DrainStarted is on record already)
    assertThat(
            world.eventsJsonpath(
                "node-2", "DrainStarted", "{range .items[*]}{.count} {.message}{\"\\n\"}{end}"))
        .matches("1 tainting pool " + pools.get(1) + " with [^\n]*\n");
  }

  /**
   * Two deleting CAPI Machines naming one pool, queued behind a held drain, are one drain: one
   * position, and the pool's condition is written once while they wait. Fresh eyes (session 45):
   * each wrote its own position, and the two rewrote the pool's condition 50 to 70 times a second.
   */
  @Test
  void twoCapiMachinesOfOneQueuedPoolDoNotRewriteItsCondition() throws Exception {
    String held = world.poolName("held");
    String shared = world.poolName("shared");
    world.createPool(held, List.of());
    world.createMachine("vm-held", held); // the test, as its poollet, never lets it go
    world.createPool(shared, List.of());
    world.createCapiMachine("node-held", held, Map.of());
    world.createCapiMachine("node-s1", shared, Map.of());
    world.createCapiMachine("node-s2", shared, Map.of());
    eventually()
        .until(
            () ->
                List.of("node-held", "node-s1", "node-s2").stream()
                    .allMatch(n -> hasHook(world.capiMachine(n))));
    world.deleteCapiMachine("node-held");
    eventually().until(() -> "Draining".equals(reason(held)));
    world.deleteCapiMachine("node-s1");
    world.deleteCapiMachine("node-s2");
    eventually().until(() -> "DrainQueued".equals(reason(shared)));
    Thread.sleep(1000); // past the passes of the deletions themselves
    String before = world.pool(shared).getMetadata().getResourceVersion();
    Thread.sleep(3000);
    MachinePool after = world.pool(shared);
    assertThat(after.getMetadata().getResourceVersion())
        .as("no write while both wait")
        .isEqualTo(before);
    assertThat(Conditions.find(after.getStatus().getConditions(), "Maintenance").getMessage())
        .endsWith("draining " + held + "; position 1 in the queue");

    // the controller watches every namespace: end both drains, or they hold the one slot for the
    // tests after this one
    world.poolletReleases("vm-held");
    List<String> nodes = List.of("node-held", "node-s1", "node-s2");
    Set<String> finished = new LinkedHashSet<>();
    eventually()
        .until(
            () -> {
              for (String n : nodes) {
                CapiMachine capi = world.capiMachine(n);
                if ((capi == null || !hasHook(capi)) && finished.add(n) && capi != null) {
                  world.capiFinishes(n);
                }
              }
              return finished.size() == nodes.size();
            });
    eventually().until(() -> world.pool(held) == null && world.pool(shared) == null);
  }

  private String reason(String pool) {
    MachinePool p = world.pool(pool);
    var c =
        p == null || p.getStatus() == null
            ? null
            : Conditions.find(p.getStatus().getConditions(), "Maintenance");
    return c == null ? null : c.getReason();
  }

  /**
   * A pool that carried {@code maintenance.ironcore.dev:NoExecute} before its CAPI Machine's
   * deletion (an operator's taint) is evicted by it anyway: its drain neither takes nor waits for
   * the one slot, and a drain deleted earlier does not wait behind it. Fresh eyes (session 35): it
   * took the slot at once, past the limit ({@code drains_in_progress} 2 with a limit of 1), and the
   * earlier drain waited behind its blocked pool.
   */
  @Test
  void aPoolTaintedByHandBeforeItsDeletionTakesNoSlot() throws Exception {
    String busy = world.poolName("slot-busy");
    String hand = world.poolName("slot-hand");
    String next = world.poolName("slot-next");
    Map<String, String> nodes = Map.of(busy, "node-busy", hand, "node-hand", next, "node-next");
    for (String pool : List.of(busy, hand, next)) {
      world.createPool(pool, List.of());
      world.createMachine("vm-" + nodes.get(pool), pool);
      world.createCapiMachine(nodes.get(pool), pool, Map.of());
    }
    eventually().until(() -> nodes.values().stream().allMatch(n -> hasHook(world.capiMachine(n))));
    world
        .cp
        .kubectl(
            "patch",
            "machinepools.v1alpha2.compute.ironcore.dev",
            hand,
            "--type=json",
            "-p",
            "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\""
                + Names.MAINTENANCE_TAINT_KEY
                + "\",\"effect\":\"NoExecute\",\"timeAdded\":\""
                + Instant.now().minusSeconds(60).truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                + "\"}]}]")
        .orThrow();
    world.deleteCapiMachine("node-busy");
    // vm-node-busy is evicted but held by the poollet finalizer: the drain keeps the slot
    eventually().until(() -> "Draining".equals(reason(busy)));
    Thread.sleep(1100);
    world.deleteCapiMachine("node-next");
    Thread.sleep(1100);
    world.deleteCapiMachine("node-hand");
    eventually().until(() -> "Draining".equals(reason(hand)) && "DrainQueued".equals(reason(next)));
    assertThat(world.eventsJsonpath("node-next", "DrainQueued", "{.items[*].message}"))
        .isEqualTo(
            "pool "
                + next
                + ": waiting for a free drain slot (--max-concurrent-drains=1): draining "
                + busy
                + "; position 1 in the queue as the wait began (the pool's Maintenance condition"
                + " keeps it current)");
    assertThat(scrape()).contains("ironcore_maintenance_drains_in_progress 1.0");
    assertThat(world.eventsJsonpath("node-hand", "DrainQueued", "{.items[*].message}")).isEmpty();

    // the slot frees: the drain deleted before node-hand's starts, node-hand's still blocked
    eventually()
        .until(
            () -> {
              Machine vm = world.machine("vm-node-busy");
              return vm != null && vm.getMetadata().getDeletionTimestamp() != null;
            });
    world.poolletReleases("vm-node-busy");
    eventually().until(() -> !hasHook(world.capiMachine("node-busy")));
    world.capiFinishes("node-busy");
    eventually().until(() -> "Draining".equals(reason(next)));
    assertThat(reason(hand)).isEqualTo("Draining");
    assertThat(maintenanceTainted(world.pool(next))).isTrue();
  }
}

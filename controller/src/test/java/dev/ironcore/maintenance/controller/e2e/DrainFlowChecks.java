package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The invariants every fault test checks on a drain of one CAPI Machine and its pool, read from the
 * API server: the pool is never deleted before CAPI finished with the node, no Machine that
 * tolerates the maintenance taint is evicted, and every event of the flow is there.
 */
final class DrainFlowChecks {
  private final ControllerWorld world;
  private final String capiMachine;
  private final String pool;

  DrainFlowChecks(ControllerWorld world, String capiMachine, String pool) {
    this.world = world;
    this.capiMachine = capiMachine;
    this.pool = pool;
  }

  /** While CAPI still holds its finalizer: the pool exists and is not being deleted. */
  void poolNotDeletedYet() {
    assertThat(world.pool(pool))
        .as("pool %s kept until CAPI is done with the node", pool)
        .isNotNull();
    assertThat(world.pool(pool).getMetadata().getDeletionTimestamp())
        .as("pool %s not deleting before CAPI is done with the node", pool)
        .isNull();
  }

  /** The hook is still held (the drain must not have been released early). */
  void hookHeld(String why) {
    assertThat(hasHook(world.capiMachine(capiMachine))).as("hook held: %s", why).isTrue();
  }

  /** Tolerating Machines are alive and not deleting. */
  void notEvicted(List<String> tolerating) {
    for (String m : tolerating) {
      assertThat(world.machine(m)).as("tolerating Machine %s exists", m).isNotNull();
      assertThat(world.machine(m).getMetadata().getDeletionTimestamp())
          .as("tolerating Machine %s never evicted", m)
          .isNull();
    }
  }

  /**
   * Sum of {@code count} of the Events in the world's namespace on {@code involvedName}, by reason
   * (an Event repeated within 10 minutes is one object with a growing count).
   */
  Map<String, Integer> eventsOn(String involvedName) {
    Map<String, Integer> byReason = new TreeMap<>();
    for (Event e : world.client.v1().events().inNamespace(world.ns).list().getItems()) {
      if (involvedName.equals(e.getInvolvedObject().getName())) {
        byReason.merge(e.getReason(), e.getCount() == null ? 1 : e.getCount(), Integer::sum);
      }
    }
    return byReason;
  }

  /**
   * After the drain: the CAPI Machine has DrainStarted, DrainBlocked, DrainCompleted and
   * PoolDeleted and no Warning of the flow (DrainStuck, PoolMissing, DrainHookRemoved); each
   * evicted Machine has its Evicted event, the tolerating ones none. Events are at least once: they
   * are recorded just before their write, so a write cut by the API server going away and retried
   * can count its event twice (docs/reliability.md); exactly-once evictions are asserted on {@code
   * evictions_total} by the tests.
   */
  void everyEventOfTheFlow(List<String> evicted, List<String> tolerating) {
    Map<String, Integer> onNode = eventsOn(capiMachine);
    assertThat(onNode)
        .as("events on CAPI Machine %s by reason", capiMachine)
        .containsKeys("DrainStarted", "DrainBlocked", "DrainCompleted", "PoolDeleted")
        .doesNotContainKeys("DrainStuck", "PoolMissing", "DrainHookRemoved", "DrainCancelled");
    assertThat(onNode.get("DrainCompleted"))
        .as("DrainCompleted recorded")
        .isGreaterThanOrEqualTo(1);
    for (String m : evicted) {
      assertThat(eventsOn(m).getOrDefault("Evicted", 0))
          .as("Evicted events on evicted Machine %s", m)
          .isGreaterThanOrEqualTo(1);
    }
    for (String m : tolerating) {
      assertThat(eventsOn(m)).as("events on tolerating Machine %s", m).doesNotContainKey("Evicted");
    }
  }
}

package dev.ironcore.maintenance.controller.eviction;

import static dev.ironcore.maintenance.controller.Fixtures.machine;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static dev.ironcore.maintenance.controller.Fixtures.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Taint;
import org.junit.jupiter.api.Test;

class EvictionDecisionTest {
  private static final Taint NO_EXECUTE = new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoExecute");
  private static final Taint NO_SCHEDULE =
      new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoSchedule");

  @Test
  void evictsABoundMachineThatDoesNotTolerateANoExecuteTaint() {
    var outcome =
        EvictionDecision.decide(machine("vm-1", "pool-a", false), pool("pool-a", NO_EXECUTE));
    assertThat(outcome.evict()).isTrue();
    assertThat(outcome.untolerated()).containsExactly(NO_EXECUTE);
  }

  @Test
  void keepsATolerantMachine() {
    assertThat(
            EvictionDecision.decide(
                    machine("vm-1", "pool-a", false, toleratesMaintenance()),
                    pool("pool-a", NO_EXECUTE))
                .evict())
        .isFalse();
  }

  @Test
  void noScheduleEvictsNothing() {
    assertThat(
            EvictionDecision.decide(machine("vm-1", "pool-a", false), pool("pool-a", NO_SCHEDULE))
                .evict())
        .isFalse();
  }

  @Test
  void skipsDeletingUnboundAndPoollessMachines() {
    assertThat(
            EvictionDecision.decide(machine("vm-1", "pool-a", true), pool("pool-a", NO_EXECUTE))
                .reason())
        .isEqualTo("already deleting");
    assertThat(
            EvictionDecision.decide(machine("vm-1", null, false), pool("pool-a", NO_EXECUTE))
                .reason())
        .isEqualTo("not bound to a pool");
    assertThat(EvictionDecision.decide(machine("vm-1", "pool-a", false), null).reason())
        .contains("does not exist");
  }
}

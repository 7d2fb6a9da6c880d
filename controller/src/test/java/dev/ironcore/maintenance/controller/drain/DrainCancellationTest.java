package dev.ironcore.maintenance.controller.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolStatus;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.controller.Fixtures;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class DrainCancellationTest {
  private static final Predicate<Map<String, String>> ROLE = LabelSelector.parse("role=ironcore");

  private static MachinePool pool(String reason, Taint... taints) {
    MachinePool p = Fixtures.pool("pool-f", taints);
    if (reason != null) {
      MachinePoolStatus s = new MachinePoolStatus();
      s.setConditions(
          Conditions.set(
              null,
              "Maintenance",
              "False",
              reason,
              "m",
              null,
              Instant.parse("2026-11-30T00:00:00Z")));
      p.setStatus(s);
    }
    return p;
  }

  private static CapiMachine deleting(Map<String, String> labels) {
    CapiMachine m = Fixtures.marked("pool-f", true);
    m.getMetadata().setName("node-f");
    m.getMetadata().setLabels(labels);
    return m;
  }

  private static final Map<String, String> SELECTED = Map.of("role", "ironcore");

  /**
   * A pool being deleted (held by someone else's finalizer) whose drain ended without running to
   * completion is cancelled too (fresh eyes: it said Draining for good, also after a restart).
   */
  @Test
  void aDeletingPoolWhoseDrainEndedIsCancelled() {
    MachinePool pool = pool("Draining");
    pool.getMetadata().setDeletionTimestamp("2026-11-30T00:01:00Z");
    pool.getMetadata().setFinalizers(List.of("example.com/keep"));
    assertThat(DrainCancellation.decide(pool, List.of(), ROLE))
        .isNotNull()
        .satisfies(c -> assertThat(c.condition().reason()).isEqualTo("DrainCancelled"));
    assertThat(DrainCancellation.decide(pool, List.of(deleting(SELECTED)), ROLE))
        .as("still drained by its CAPI Machine")
        .isNull();
  }

  @Test
  void aQueuedPoolWhoseMachineWasDeselectedIsCancelledWithANormalEvent() {
    var cancel = DrainCancellation.decide(pool("DrainQueued"), List.of(deleting(Map.of())), ROLE);
    assertThat(cancel).isNotNull();
    assertThat(cancel.condition().reason()).isEqualTo("DrainCancelled");
    assertThat(cancel.condition().status()).isEqualTo("False");
    assertThat(cancel.condition().message())
        .contains("cancelled while DrainQueued")
        .contains("CAPI Machine ns/node-f is no longer selected by --capi-machine-selector")
        .contains("the pool was not tainted");
    assertThat(cancel.event().type()).isEqualTo("Normal");
    assertThat(cancel.event().reason()).isEqualTo("DrainCancelled");
    assertThat(cancel.event().on()).isEqualTo(DrainEvent.Subject.POOL);
    assertThat(cancel.event().when()).isEqualTo(DrainEvent.When.REASON_CHANGED);
  }

  @Test
  void aDrainingPoolWhoseMachineIsGoneKeepsItsTaintsAndWarns() {
    var cancel =
        DrainCancellation.decide(
            pool("Draining", DrainDecision.MAINTENANCE_TAINTS.toArray(Taint[]::new)),
            List.of(),
            ROLE);
    assertThat(cancel).isNotNull();
    assertThat(cancel.condition().message())
        .contains("no deleting CAPI Machine references it")
        .contains(Names.MAINTENANCE_TAINT_KEY + " taints stay");
    assertThat(cancel.event().type()).isEqualTo("Warning");
  }

  @Test
  void aStuckPoolWhoseFinalizerWasRemovedIsCancelled() {
    CapiMachine m = deleting(SELECTED);
    m.getMetadata().setFinalizers(List.of(Names.CAPI_MACHINE_FINALIZER));
    var cancel = DrainCancellation.decide(pool("DrainStuck"), List.of(m), ROLE);
    assertThat(cancel.condition().message())
        .contains(
            "finalizer " + Names.CLEANUP_FINALIZER + " was removed from CAPI Machine ns/node-f");
  }

  @Test
  void aDrainStillUnderWayIsNotCancelled() {
    for (String reason : List.of("DrainQueued", "Draining", "DrainStuck")) {
      assertThat(DrainCancellation.decide(pool(reason), List.of(deleting(SELECTED)), ROLE))
          .as(reason)
          .isNull();
    }
  }

  /**
   * A drain held because a live CAPI Machine shares the pool: not cancelled while held; once the
   * deleting Machine's nodeRef moved away, cancelled, and the live Machine is not blamed.
   */
  @Test
  void aHeldDrainIsCancelledOnceItsMachineMovedAwayWithoutBlamingTheLiveOne() {
    CapiMachine live = Fixtures.marked("pool-f", false);
    live.getMetadata().setName("node-live");
    assertThat(DrainCancellation.decide(pool("DrainHeld"), List.of(deleting(SELECTED), live), ROLE))
        .as("still held by its deleting CAPI Machine")
        .isNull();
    var cancel = DrainCancellation.decide(pool("DrainHeld"), List.of(live), ROLE);
    assertThat(cancel).isNotNull();
    assertThat(cancel.condition().message())
        .contains("cancelled while DrainHeld: no deleting CAPI Machine references it")
        .doesNotContain("node-live");
  }

  /**
   * Fresh eyes: a cancelled drain kept asking to remove the maintenance taints after the operator
   * had removed them, for good.
   */
  @Test
  void aCancelledDrainWhoseTaintsWereRemovedSaysSo() {
    Taint[] ours = DrainDecision.MAINTENANCE_TAINTS.toArray(Taint[]::new);
    var cancel = DrainCancellation.decide(pool("Draining", ours), List.of(), ROLE);
    MachinePool cancelled = pool("DrainCancelled", ours);
    cancelled.getStatus().getConditions().get(0).setMessage(cancel.condition().message());
    assertThat(DrainCancellation.decide(cancelled, List.of(), ROLE))
        .as("still tainted: nothing to change")
        .isNull();

    assertThat(cancel.condition().message()).endsWith("remove them if the node stays in service");

    cancelled.getSpec().setTaints(List.of());
    // a message written before " in service" was added is recognised too
    String older = cancel.condition().message().replace(" in service", "");
    cancelled.getStatus().getConditions().get(0).setMessage(older);
    assertThat(DrainCancellation.decide(cancelled, List.of(), ROLE).condition().message())
        .endsWith("taints were removed since: nothing left to do");
    cancelled.getStatus().getConditions().get(0).setMessage(cancel.condition().message());
    var removed = DrainCancellation.decide(cancelled, List.of(), ROLE);
    assertThat(removed).isNotNull();
    assertThat(removed.condition().reason()).isEqualTo("DrainCancelled");
    assertThat(removed.condition().message())
        .startsWith("drain of pool pool-f cancelled while Draining: no deleting CAPI Machine")
        .endsWith(
            "; the "
                + Names.MAINTENANCE_TAINT_KEY
                + " taints were removed since: nothing left to do")
        .doesNotContain("taints stay");
    assertThat(removed.event().type()).isEqualTo("Normal");

    cancelled.getStatus().getConditions().get(0).setMessage(removed.condition().message());
    assertThat(DrainCancellation.decide(cancelled, List.of(), ROLE)).as("written once").isNull();
  }

  @Test
  void onlyConditionsClaimingADrainAreCancelled() {
    for (String reason : new String[] {null, "Drained", "DrainCancelled"}) {
      assertThat(DrainCancellation.decide(pool(reason), List.of(), ROLE)).as(reason).isNull();
    }
    assertThat(DrainCancellation.decide(null, List.of(), ROLE)).isNull();
  }

  @Test
  void machinesOnOtherNodesDoNotKeepTheDrain() {
    CapiMachine other = Fixtures.marked("pool-g", true);
    other.getMetadata().setLabels(SELECTED);
    assertThat(DrainCancellation.decide(pool("DrainQueued"), List.of(other), ROLE)).isNotNull();
  }
}

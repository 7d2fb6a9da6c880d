package dev.ironcore.maintenance.controller.drain;

import static dev.ironcore.maintenance.controller.Fixtures.machine;
import static dev.ironcore.maintenance.controller.Fixtures.marked;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolStatus;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.controller.Fixtures;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What operators are told: {@link DrainDecision#decide} with a fixed clock. */
class DrainOutcomeTest {
  /** Fixtures' deletionTimestamp. */
  private static final Instant DELETED = Instant.parse("2026-11-29T08:00:00Z");

  private static final MachinePool TAINTED =
      pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0]));

  private static Clock at(Duration sinceDeletion) {
    return Clock.fixed(DELETED.plus(sinceDeletion), ZoneOffset.UTC);
  }

  private static DrainOutcome decide(
      CapiMachine capi, MachinePool pool, List<Machine> bound, DrainPolicy policy, Clock clock) {
    return DrainDecision.decide(new DrainInput(capi, true, pool, bound), policy, clock);
  }

  private static List<String> reasons(DrainOutcome o) {
    return o.events().stream().map(DrainEvent::reason).toList();
  }

  @Test
  void aHeldDrainIsDrainingNamingTheBlockingMachinesAndRecordsDrainBlockedEveryPass() {
    var o =
        decide(
            marked("pool-a", true),
            TAINTED,
            List.of(machine("vm-7", "pool-a", false), machine("vm-1", "pool-a", true)),
            DrainPolicy.defaults(),
            at(Duration.ofMinutes(1)));
    assertThat(o.step()).isInstanceOf(DrainStep.Hold.class);
    assertThat(o.condition())
        .isEqualTo(
            new MaintenanceCondition(
                "False",
                "Draining",
                "waiting for 2 Machines: ns/vm-1 (deleting), ns/vm-7 (to be evicted)"));
    assertThat(o.events())
        .containsExactly(
            new DrainEvent(
                DrainEvent.Subject.CAPI_MACHINE,
                "Normal",
                "DrainBlocked",
                "pool pool-a: waiting for 2 Machines: ns/vm-1 (deleting), ns/vm-7 (to be evicted)",
                DrainEvent.When.EVERY_PASS));
    assertThat(o.requeueAfter()).isEqualTo(DrainDecision.HOLD_RECHECK);
  }

  @Test
  void aLongListOfBlockingMachinesNamesTheFirstFive() {
    List<Machine> bound = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      bound.add(machine("vm-" + i, "pool-a", false));
    }
    var o =
        decide(marked("pool-a", true), TAINTED, bound, DrainPolicy.defaults(), at(Duration.ZERO));
    assertThat(o.condition().message())
        .isEqualTo(
            "waiting for 7 Machines: ns/vm-0 (to be evicted), ns/vm-1 (to be evicted), ns/vm-2 (to"
                + " be evicted), ns/vm-3 (to be evicted), ns/vm-4 (to be evicted) and 2 more");
  }

  @Test
  void aHoldRequeuesAtTheTimeoutWhenThatComesBeforeTheRecheck() {
    var o =
        decide(
            marked("pool-a", true),
            TAINTED,
            List.of(machine("vm-1", "pool-a", false)),
            DrainPolicy.defaults().withDrainTimeout(Duration.ofSeconds(30)),
            at(Duration.ofSeconds(27)));
    assertThat(o.condition().reason()).isEqualTo("Draining");
    assertThat(o.requeueAfter()).isEqualTo(Duration.ofSeconds(3));
  }

  /** The pool as a drain that started {@code sinceDeletion} after the deletion tainted it. */
  private static MachinePool taintedAfter(Duration sinceDeletion) {
    List<Taint> taints = new ArrayList<>();
    for (Taint t : DrainDecision.MAINTENANCE_TAINTS) {
      Taint copy = new Taint(t.getKey(), t.getValue(), t.getEffect());
      copy.setTimeAdded(DELETED.plus(sinceDeletion).toString());
      taints.add(copy);
    }
    return pool("pool-a", taints.toArray(new Taint[0]));
  }

  /**
   * Time spent queued for a drain slot ({@code --max-concurrent-drains}) does not count toward
   * {@code --drain-timeout}: it counts from the maintenance taint's {@code timeAdded} (a drain
   * queued 44 s behind another was flagged stuck the second it started).
   */
  @Test
  void theTimeoutCountsFromWhenTheDrainTaintedThePoolNotFromTheDeletion() {
    DrainPolicy timeout40s = DrainPolicy.defaults().withDrainTimeout(Duration.ofSeconds(40));
    List<Machine> blocking = List.of(machine("vm-1", "pool-a", false));
    var started =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(44)),
            blocking,
            timeout40s,
            at(Duration.ofSeconds(80)));
    assertThat(started.condition().reason()).isEqualTo("Draining");
    assertThat(started.condition().message())
        .as("kubectl shows since when it drains (fresh eyes, session 47: only DrainStuck said)")
        .isEqualTo(
            "waiting for 1 Machine: ns/vm-1 (to be evicted) (tainted since 2026-11-29T08:00:44Z)");
    // a second CAPI Machine naming the pool, deleted after its taint: the same message (review,
    // session 47: this drain's own start differed and the two rewrote the condition)
    var later = marked("pool-a", true);
    later.getMetadata().setName("capi-2");
    later.getMetadata().setDeletionTimestamp("2026-11-29T08:01:00Z");
    assertThat(
            decide(
                    later,
                    taintedAfter(Duration.ofSeconds(44)),
                    blocking,
                    timeout40s,
                    at(Duration.ofSeconds(80)))
                .condition()
                .message())
        .isEqualTo(started.condition().message());
    assertThat(started.requeueAfter()).as("36 s of 40 s held").isEqualTo(Duration.ofSeconds(4));

    var stuck =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(44)),
            blocking,
            timeout40s,
            at(Duration.ofSeconds(85)));
    assertThat(stuck.condition().reason()).isEqualTo("DrainStuck");
    assertThat(stuck.condition().message())
        .contains("longer than --drain-timeout=40s (drain started at 2026-11-29T08:00:44Z)");

    var olderTaint =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(-600)),
            blocking,
            timeout40s,
            at(Duration.ofSeconds(60)));
    var sameSecond =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ZERO),
            blocking,
            timeout40s,
            at(Duration.ofSeconds(60)));
    assertThat(sameSecond.condition().message())
        .as("timeAdded and deletionTimestamp in whole seconds: a drain that started at once")
        .contains("(drain started at 2026-11-29T08:00:00Z)");
    assertThat(olderTaint.condition().message())
        .as("a taint older than the deletion is not this drain's: count from the deletion")
        .contains("(CAPI Machine deleted at 2026-11-29T08:00:00Z)");
  }

  @Test
  void heldLongerThanTheTimeoutIsStuckWithAWarningOnTheTransitionAndKeepsHolding() {
    var o =
        decide(
            marked("pool-a", true),
            TAINTED,
            List.of(machine("vm-1", "pool-a", false)),
            DrainPolicy.defaults(),
            at(Duration.ofMinutes(31)));
    assertThat(o.step()).isInstanceOf(DrainStep.Hold.class);
    assertThat(o.condition().status()).isEqualTo("False");
    assertThat(o.condition().reason()).isEqualTo("DrainStuck");
    assertThat(o.condition().message())
        .isEqualTo(
            "drain of pool pool-a has held the pre-drain hook longer than --drain-timeout=30m0s"
                + " (CAPI Machine deleted at 2026-11-29T08:00:00Z); the hook is kept;"
                + " waiting for 1 Machine: ns/vm-1 (to be evicted)");
    assertThat(o.events())
        .extracting(DrainEvent::reason, DrainEvent::type, DrainEvent::when)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "DrainBlocked", "Normal", DrainEvent.When.EVERY_PASS),
            org.assertj.core.groups.Tuple.tuple(
                "DrainStuck", "Warning", DrainEvent.When.REASON_CHANGED));
    assertThat(
            decide(
                    marked("pool-a", true),
                    TAINTED,
                    List.of(machine("vm-1", "pool-a", false)),
                    DrainPolicy.defaults(),
                    at(Duration.ofMinutes(45)))
                .condition())
        .as("the message does not change while the same Machines block, so it is written once")
        .isEqualTo(o.condition());
  }

  @Test
  void aZeroTimeoutNeverReportsStuck() {
    var o =
        decide(
            marked("pool-a", true),
            TAINTED,
            List.of(machine("vm-1", "pool-a", false)),
            DrainPolicy.defaults().withDrainTimeout(Duration.ZERO),
            at(Duration.ofDays(3)));
    assertThat(o.condition().reason()).isEqualTo("Draining");
  }

  @Test
  void taintingRecordsDrainStartedOnceTheTaintsWereAdded() {
    var o =
        decide(
            marked("pool-a", true),
            pool("pool-a"),
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ZERO));
    assertThat(o.step()).isInstanceOf(DrainStep.AddTaints.class);
    assertThat(o.events())
        .extracting(DrainEvent::reason, DrainEvent::when)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("DrainStarted", DrainEvent.When.BEFORE_WRITE));
  }

  @Test
  void releasingTheHookSetsDrainedAndRecordsDrainCompletedWithTheDuration() {
    var o =
        decide(
            marked("pool-a", true),
            TAINTED,
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(75)));
    assertThat(o.step()).isEqualTo(new DrainStep.RemoveHook("pool-a", false));
    assertThat(o.condition().status()).isEqualTo("True");
    assertThat(o.condition().reason()).isEqualTo("Drained");
    assertThat(o.events()).hasSize(1);
    assertThat(o.events().get(0).reason()).isEqualTo("DrainCompleted");
    assertThat(o.events().get(0).message()).contains("drained in 1m15s");
    assertThat(o.requeueAfter()).isNull();
  }

  /**
   * Fresh eyes (session 43): Machines that tolerate the maintenance taint stay bound to the pool,
   * which is deleted after the node; no Event named them. DrainCompleted does now.
   */
  @Test
  void drainCompletedNamesTheMachinesThatTolerateTheTaintAndStay() {
    var o =
        decide(
            marked("pool-a", true),
            TAINTED,
            List.of(
                dev.ironcore.maintenance.controller.Fixtures.machine(
                    "vm-2",
                    "pool-a",
                    false,
                    dev.ironcore.maintenance.controller.Fixtures.toleratesMaintenance()),
                dev.ironcore.maintenance.controller.Fixtures.machine(
                    "vm-gone",
                    "pool-a",
                    true,
                    dev.ironcore.maintenance.controller.Fixtures.toleratesMaintenance()),
                dev.ironcore.maintenance.controller.Fixtures.machine(
                    "vm-1",
                    "pool-a",
                    false,
                    dev.ironcore.maintenance.controller.Fixtures.toleratesMaintenance())),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(75)));
    assertThat(o.step()).isEqualTo(new DrainStep.RemoveHook("pool-a", false));
    assertThat(o.events().get(0).message())
        .endsWith(
            ": removing the pre-drain hook, so CAPI may drain and delete the node; 2 Machines"
                + " tolerate the maintenance taint and stay bound to the pool: ns/vm-1, ns/vm-2");
  }

  /**
   * The drain's own time counts from the taint; when it started later than the deletion (queued, or
   * its taint write failed for a while), the event names the time since the deletion too, which the
   * drain-duration histogram records.
   */
  @Test
  void drainCompletedNamesTheTimeSinceTheDeletionWhenTheDrainStartedLater() {
    var o =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(50)),
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(53)));
    assertThat(o.events().get(0).message())
        .startsWith("pool pool-a drained in 3s (53s since the CAPI Machine's deletion): ");
    var atOnce =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ZERO),
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(53)));
    assertThat(atOnce.events().get(0).message()).startsWith("pool pool-a drained in 53s: ");
    // a taint written a second or two after the deletion is a drain that did not wait
    var taintedSoonAfter =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(4)),
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(53)));
    assertThat(taintedSoonAfter.events().get(0).message())
        .startsWith("pool pool-a drained in 49s: ");
    var taintedLater =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(5)),
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(53)));
    assertThat(taintedLater.events().get(0).message())
        .startsWith("pool pool-a drained in 48s (53s since the CAPI Machine's deletion): ");
  }

  @Test
  void aMissingPoolWithMachinesStillBoundToItsNameWarnsNamingThem() {
    var o =
        decide(
            marked("pool-a", true),
            null,
            List.of(machine("vm-2", "pool-a", false), machine("vm-1", "pool-a", true)),
            DrainPolicy.defaults(),
            at(Duration.ZERO));
    assertThat(o.step()).isEqualTo(new DrainStep.RemoveHook("pool-a", true));
    assertThat(o.condition()).isNull();
    assertThat(o.events().get(0).type()).isEqualTo("Warning");
    assertThat(o.events().get(0).reason()).isEqualTo("PoolMissing");
    assertThat(o.events().get(0).message())
        .isEqualTo(
            "pool pool-a does not exist, but 2 Machines still bound to it: ns/vm-1, ns/vm-2;"
                + " releasing the pre-drain hook");
    assertThat(
            reasons(
                decide(
                    marked("pool-a", true),
                    null,
                    List.of(),
                    DrainPolicy.defaults(),
                    at(Duration.ZERO))))
        .containsExactly("DrainCompleted");
  }

  @Test
  void aHookRemovedBySomeoneElseWhileMachinesBlockIsAWarning() {
    CapiMachine hookGone = marked("pool-a", true);
    hookGone.getMetadata().getAnnotations().remove(Names.PRE_DRAIN_HOOK_ANNOTATION);
    var o =
        decide(
            hookGone,
            TAINTED,
            List.of(machine("vm-1", "pool-a", false)),
            DrainPolicy.defaults(),
            at(Duration.ZERO));
    assertThat(o.step()).isInstanceOf(DrainStep.WaitForCapi.class);
    assertThat(o.condition()).as("not drained: no Drained condition").isNull();
    assertThat(o.events()).hasSize(1);
    assertThat(o.events().get(0).type()).isEqualTo("Warning");
    assertThat(o.events().get(0).reason()).isEqualTo("DrainHookRemoved");
    assertThat(o.events().get(0).message())
        .endsWith("waiting for 1 Machine: ns/vm-1 (to be evicted)");
  }

  @Test
  void noHookWarningAfterWeReportedThePoolDrained() {
    CapiMachine hookGone = marked("pool-a", true);
    hookGone.getMetadata().getAnnotations().remove(Names.PRE_DRAIN_HOOK_ANNOTATION);
    MachinePool drained = pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0]));
    drained.setStatus(new MachinePoolStatus());
    drained
        .getStatus()
        .setConditions(Conditions.set(null, "Maintenance", "True", "Drained", "x", 1L, DELETED));
    var o =
        decide(
            hookGone,
            drained,
            List.of(machine("late", "pool-a", false)),
            DrainPolicy.defaults(),
            at(Duration.ZERO));
    assertThat(o.events()).isEmpty();
  }

  /** A pool whose Maintenance condition says {@code reason}, as a crash may have left it. */
  private static MachinePool showing(String reason) {
    MachinePool p = pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0]));
    p.setStatus(new MachinePoolStatus());
    p.getStatus()
        .setConditions(Conditions.set(null, "Maintenance", "False", reason, "x", 1L, DELETED));
    return p;
  }

  @Test
  void aCrashBetweenReleasingTheHookAndWritingDrainedIsCorrectedWhileWaitingForCapi() {
    CapiMachine hookGone = marked("pool-a", true);
    hookGone.getMetadata().getAnnotations().remove(Names.PRE_DRAIN_HOOK_ANNOTATION);
    var o =
        decide(
            hookGone,
            showing("Draining"),
            List.of(machine("tolerant", "pool-a", false, Fixtures.toleratesMaintenance())),
            DrainPolicy.defaults(),
            at(Duration.ZERO));
    assertThat(o.step()).isInstanceOf(DrainStep.WaitForCapi.class);
    assertThat(o.condition())
        .isEqualTo(MaintenanceCondition.drained(DrainDecision.DRAINED_MESSAGE));
    assertThat(o.events()).isEmpty();
  }

  @Test
  void aPoolIsDeletedShowingDrainedWithPoolDeletedRecordedBeforeTheDelete() {
    CapiMachine capiDone =
        Fixtures.capiMachine("pool-a", true, List.of(Names.CLEANUP_FINALIZER), java.util.Map.of());
    var o =
        decide(capiDone, showing("Draining"), List.of(), DrainPolicy.defaults(), at(Duration.ZERO));
    assertThat(o.step()).isEqualTo(new DrainStep.DeletePool("pool-a"));
    assertThat(o.condition().reason()).isEqualTo("Drained");
    assertThat(o.events())
        .extracting(DrainEvent::reason, DrainEvent::when)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("PoolDeleted", DrainEvent.When.BEFORE_WRITE));
    // already Drained: no condition write
    MachinePool drained = showing("Drained");
    assertThat(
            decide(capiDone, drained, List.of(), DrainPolicy.defaults(), at(Duration.ZERO))
                .condition())
        .isNull();
  }

  @Test
  void withoutAFreeSlotTheDrainIsQueuedAndNotTainted() {
    // pool-b deleted earlier, draining
    var o =
        decideWithOneSlot(
            new DrainSlot("ns/other", DELETED.minusSeconds(5), "pool-b", true, false));
    assertThat(o.step()).isEqualTo(new DrainStep.Queue("pool-a", 1, List.of("pool-b")));
    assertThat(o.condition().reason()).isEqualTo("DrainQueued");
    assertThat(o.condition().message())
        .isEqualTo(
            "waiting for a free drain slot (--max-concurrent-drains=1): draining pool-b; position 1"
                + " in the queue");
    assertThat(o.events())
        .singleElement()
        .isEqualTo(
            new DrainEvent(
                DrainEvent.Subject.CAPI_MACHINE,
                "Normal",
                "DrainQueued",
                "pool pool-a: "
                    + o.condition().message()
                    + " as the wait began (the pool's Maintenance condition keeps it current)",
                DrainEvent.When.REASON_CHANGED));
    assertThat(o.requeueAfter()).isEqualTo(DrainDecision.QUEUE_RECHECK);
  }

  /** A free slot the earlier deletion takes: the message names no empty list of pools. */
  @Test
  void aDrainBehindOneThatTakesTheFreeSlotSaysSo() {
    // pool-b deleted earlier, waiting for the free slot too
    var o =
        decideWithOneSlot(
            new DrainSlot("ns/earlier", DELETED.minusSeconds(5), "pool-b", false, true));
    assertThat(o.step()).isEqualTo(new DrainStep.Queue("pool-a", 2, List.of()));
    assertThat(o.condition().message())
        .isEqualTo(
            "waiting for a free drain slot (--max-concurrent-drains=1): the drains ahead in the"
                + " queue start first; position 2 in the queue");
  }

  /**
   * The drain of pool-a (CAPI Machine ns/capi-1) with --max-concurrent-drains=1 and {@code other}.
   */
  private static DrainOutcome decideWithOneSlot(DrainSlot other) {
    return DrainDecision.decide(
        new DrainInput(
            marked("pool-a", true),
            true,
            pool("pool-a"),
            List.of(),
            List.of(other, new DrainSlot("ns/capi-1", DELETED, "pool-a", false, true)),
            List.of()),
        DrainPolicy.defaults().withMaxConcurrentDrains(1),
        at(Duration.ZERO));
  }

  /** {@link #taintedAfter} with the pool's Maintenance condition at {@code reason} (null: none). */
  private static MachinePool withMaintenance(MachinePool p, String reason) {
    if (reason != null) {
      MachinePoolStatus status = new MachinePoolStatus();
      status.setConditions(
          Conditions.set(null, "Maintenance", "False", reason, "m", null, DELETED));
      p.setStatus(status);
    }
    return p;
  }

  private static DrainEvent started(DrainOutcome o) {
    return o.events().stream()
        .filter(e -> e.reason().equals("DrainStarted"))
        .findFirst()
        .orElse(null);
  }

  /**
   * A drain that finds its pool already tainted (a cancelled drain's taints stay; or an operator's)
   * writes no taints, which is where every other drain records {@code DrainStarted}: it is recorded
   * on the transition into Draining instead, before DrainBlocked, naming when the taint was added.
   */
  @Test
  void aDrainOfAPoolTaintedBeforeTheDeletionRecordsDrainStartedOnEnteringDraining() {
    List<Machine> blocking = List.of(machine("vm-1", "pool-a", false));
    var o =
        decide(
            marked("pool-a", true),
            withMaintenance(taintedAfter(Duration.ofHours(-2)), "DrainCancelled"),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(o.condition().reason()).isEqualTo("Draining");
    assertThat(reasons(o)).containsExactly("DrainStarted", "DrainBlocked");
    assertThat(started(o).when()).isEqualTo(DrainEvent.When.REASON_CHANGED);
    assertThat(started(o).message())
        .isEqualTo(
            "pool pool-a already carries the maintenance.ironcore.dev taints (NoExecute added at"
                + " 2026-11-29T06:00:00Z, before this drain): draining it without tainting;"
                + " Machines that do not tolerate them are evicted");

    // a hand-tainted pool with no condition yet: the same
    var byHand =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofHours(-2)),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(reasons(byHand)).containsExactly("DrainStarted", "DrainBlocked");

    // nothing blocks: recorded right before the hook's release, then DrainCompleted
    var done =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofHours(-2)),
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(done.step()).isInstanceOf(DrainStep.RemoveHook.class);
    assertThat(reasons(done)).containsExactly("DrainStarted", "DrainCompleted");
    assertThat(started(done).when()).isEqualTo(DrainEvent.When.BEFORE_WRITE);
  }

  @Test
  void drainStartedIsNotRepeatedForAPoolThisDrainTaintedOrAlreadyShowsDraining() {
    List<Machine> blocking = List.of(machine("vm-1", "pool-a", false));
    for (String reason : List.of("Draining", "DrainStuck", "Drained")) {
      var o =
          decide(
              marked("pool-a", true),
              withMaintenance(taintedAfter(Duration.ofHours(-2)), reason),
              blocking,
              DrainPolicy.defaults(),
              at(Duration.ofSeconds(5)));
      assertThat(reasons(o)).as(reason).doesNotContain("DrainStarted");
    }
    // tainted by this drain (DrainStarted came with the taint write)
    var own =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(3)),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(reasons(own)).containsExactly("DrainBlocked");
    // 10 s before the deletion: an operator's taint (fresh eyes: no DrainStarted at all), or this
    // drain's under a webhook clock 10 s behind the API server's, whose own DrainStarted is then on
    // the reconciler's record (it records one per drain)
    var justBefore =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(-10)),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(reasons(justBefore)).containsExactly("DrainStarted", "DrainBlocked");
    assertThat(started(justBefore).message())
        .contains("(NoExecute added at 2026-11-29T07:59:50Z, before this drain)");
    // :NoExecute alone, added by hand a minute before: the drain adds :NoSchedule, and its
    // DrainStarted says when the other was added (fresh eyes: it read like this drain's own)
    Taint byHand =
        new Taint(
            Names.MAINTENANCE_TAINT_KEY,
            null,
            dev.ironcore.maintenance.api.compute.TaintEffect.NO_EXECUTE);
    byHand.setTimeAdded("2026-11-29T07:59:00Z");
    assertThat(
            started(
                    decide(
                        marked("pool-a", true),
                        pool("pool-a", byHand),
                        blocking,
                        DrainPolicy.defaults(),
                        at(Duration.ofSeconds(5))))
                .message())
        .startsWith(
            "tainting pool pool-a with maintenance.ironcore.dev:NoSchedule (it already carries"
                + " :NoExecute, added at 2026-11-29T07:59:00Z); ");
    // 3 s before: within the clock skew the slot and --drain-timeout take as this drain's, yet
    // with no taint write of this drain an operator's taint must still have its DrainStarted
    // (code review, session 50)
    var withinSkew =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(-3)),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(reasons(withinSkew)).containsExactly("DrainStarted", "DrainBlocked");
    assertThat(started(withinSkew).message())
        .contains("(NoExecute added at 2026-11-29T07:59:57Z, before this drain)");
    // no timeAdded (a v1alpha1-only API server): only after a cancelled drain
    assertThat(
            reasons(
                decide(
                    marked("pool-a", true),
                    TAINTED,
                    blocking,
                    DrainPolicy.defaults(),
                    at(Duration.ofSeconds(5)))))
        .containsExactly("DrainBlocked");
    var afterCancel =
        decide(
            marked("pool-a", true),
            withMaintenance(
                pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0])),
                "DrainCancelled"),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(reasons(afterCancel)).containsExactly("DrainStarted", "DrainBlocked");
    assertThat(started(afterCancel).message())
        .isEqualTo(
            "pool pool-a already carries the maintenance.ironcore.dev taints: draining it without"
                + " tainting; Machines that do not tolerate them are evicted");
  }

  /**
   * Fresh eyes: a maintenance taint written by hand with a {@code timeAdded} in the future (2030)
   * was taken as this drain's start, so the drain never became stuck and completed "in 0s". It is
   * not this drain's: the timeout counts from the deletion, and DrainStarted says why.
   */
  @Test
  void aTimeAddedInTheFutureIsNotThisDrainsStart() {
    List<Machine> blocking = List.of(machine("vm-1", "pool-a", false));
    DrainPolicy timeout30s = DrainPolicy.defaults().withDrainTimeout(Duration.ofSeconds(30));
    MachinePool future = taintedAfter(Duration.ofDays(400));
    var first =
        decide(marked("pool-a", true), future, blocking, timeout30s, at(Duration.ofSeconds(5)));
    assertThat(first.condition().reason()).isEqualTo("Draining");
    assertThat(started(first).message())
        .contains(
            "lies in the future, so not this drain's; --drain-timeout counts from the CAPI"
                + " Machine's deletion");
    var later =
        decide(marked("pool-a", true), future, blocking, timeout30s, at(Duration.ofSeconds(31)));
    assertThat(later.condition().reason()).isEqualTo("DrainStuck");
    // a webhook clock up to a minute ahead of the controller's still reads as this drain's
    var skewed =
        decide(
            marked("pool-a", true),
            taintedAfter(Duration.ofSeconds(50)),
            blocking,
            timeout30s,
            at(Duration.ofSeconds(5)));
    assertThat(reasons(skewed)).containsExactly("DrainBlocked");
    assertThat(skewed.condition().reason()).isEqualTo("Draining");
  }

  /**
   * Fresh eyes: a queued pool tainted by an operator drains without a taint write of this drain, so
   * no DrainStarted came. It comes now on the transition out of DrainQueued (when this drain
   * tainted it once admitted, the reconciler has its own DrainStarted on record and drops this
   * one).
   */
  @Test
  void aQueuedPoolTaintedByHandRecordsDrainStarted() {
    List<Machine> blocking = List.of(machine("vm-1", "pool-a", false));
    var o =
        decide(
            marked("pool-a", true),
            withMaintenance(taintedAfter(Duration.ofSeconds(20)), "DrainQueued"),
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(25)));
    assertThat(reasons(o)).containsExactly("DrainStarted", "DrainBlocked");
    assertThat(started(o).message())
        .contains("(NoExecute added at 2026-11-29T08:00:20Z, while this drain waited for a slot)");
  }

  /**
   * Fresh eyes: a CAPI Machine whose status.nodeRef was removed mid-drain had its hook released
   * with no event on it (only the pool's DrainCancelled); one without a node never had one either.
   */
  @Test
  void releasingTheHookForWantOfANodeRefIsAnEvent() {
    var o = decide(marked(null, true), null, List.of(), DrainPolicy.defaults(), at(Duration.ZERO));
    assertThat(o.step()).isEqualTo(new DrainStep.Release(DrainDecision.NO_NODE));
    assertThat(reasons(o)).containsExactly("DrainCompleted");
    assertThat(o.events().get(0).message())
        .isEqualTo(
            "no status.nodeRef, so no pool to drain: releasing the pre-drain hook, so CAPI may"
                + " delete the Machine");
  }

  /**
   * Fresh eyes: a pool whose earlier drain ended Drained (its hook held by someone else's hook, our
   * finalizer then removed) keeps the taints and the old condition; a new drain of it records
   * DrainStarted too, while the condition this drain writes does not repeat it.
   */
  @Test
  void aConditionLeftByAnEarlierDrainDoesNotHideTheNewDrainsStart() {
    List<Machine> blocking = List.of(machine("vm-1", "pool-a", false));
    MachinePool leftover =
        pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0])); // no timeAdded
    MachinePoolStatus status = new MachinePoolStatus();
    status.setConditions(
        Conditions.set(
            null, "Maintenance", "True", "Drained", "m", null, DELETED.minusSeconds(3600)));
    leftover.setStatus(status);
    var o =
        decide(
            marked("pool-a", true),
            leftover,
            blocking,
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(5)));
    assertThat(reasons(o)).containsExactly("DrainStarted", "DrainBlocked");

    // the Draining this drain wrote, after the deletion: no second DrainStarted
    status.setConditions(
        Conditions.set(
            null, "Maintenance", "False", "Draining", "m", null, DELETED.plusSeconds(2)));
    assertThat(
            reasons(
                decide(
                    marked("pool-a", true),
                    leftover,
                    blocking,
                    DrainPolicy.defaults(),
                    at(Duration.ofSeconds(5)))))
        .containsExactly("DrainBlocked");
  }

  @Test
  void taintingAPoolThatCarriesOnlyTheNoExecuteTaintSaysWhichTaintItAdds() {
    MachinePool onlyNoExecute = pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.get(1));
    var o =
        decide(
            marked("pool-a", true),
            onlyNoExecute,
            List.of(),
            DrainPolicy.defaults(),
            at(Duration.ofSeconds(1)));
    assertThat(o.step()).isInstanceOf(DrainStep.AddTaints.class);
    assertThat(o.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .isEqualTo(
                        "tainting pool pool-a with maintenance.ironcore.dev:NoSchedule (it already"
                            + " carries :NoExecute); Machines that do not tolerate it are evicted"));
  }
}

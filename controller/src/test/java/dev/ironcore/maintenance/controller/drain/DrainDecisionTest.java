package dev.ironcore.maintenance.controller.drain;

import static dev.ironcore.maintenance.controller.Fixtures.capiMachine;
import static dev.ironcore.maintenance.controller.Fixtures.machine;
import static dev.ironcore.maintenance.controller.Fixtures.marked;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static dev.ironcore.maintenance.controller.Fixtures.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DrainDecisionTest {
  private static DrainInput in(
      dev.ironcore.maintenance.api.capi.CapiMachine capi,
      MachinePool pool,
      List<dev.ironcore.maintenance.api.compute.Machine> bound) {
    return new DrainInput(capi, true, pool, bound);
  }

  private static final MachinePool TAINTED =
      pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0]));

  private static MachinePool taintedAt(String timeAdded) {
    Taint noExecute = new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoExecute");
    noExecute.setTimeAdded(timeAdded);
    return pool("pool-a", new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoSchedule"), noExecute);
  }

  /**
   * The deletion is stamped by the API server's clock, the taint's timeAdded by the webhook
   * server's, both in whole seconds: a drain's own taint written right after the deletion reads up
   * to a few seconds earlier when the webhook server's clock is behind (code review, session 50:
   * the drain then counted as not holding a slot, and --drain-timeout counted from the deletion).
   */
  @Test
  void aTaintStampedUpToFiveSecondsBeforeTheDeletionIsThisDrainsCountedFromTheDeletion() {
    var capi = marked("pool-a", true); // deleted at 08:00:00
    java.time.Instant deleted = java.time.Instant.parse("2026-11-29T08:00:00Z");
    java.time.Instant now = deleted.plusSeconds(30);
    for (String added : List.of("2026-11-29T07:59:59Z", "2026-11-29T07:59:55Z")) {
      MachinePool pool = taintedAt(added);
      assertThat(DrainDecision.taintedBeforeDrain(pool, deleted, now)).as(added).isFalse();
      var hold = DrainDecision.Hold.of(capi, pool, now);
      assertThat(hold.tainted()).as(added).isEqualTo(deleted);
      assertThat(hold.held()).as(added).isEqualTo(java.time.Duration.ofSeconds(30));
    }
    MachinePool byHand = taintedAt("2026-11-29T07:59:54Z");
    assertThat(DrainDecision.taintedBeforeDrain(byHand, deleted, now)).isTrue();
    assertThat(DrainDecision.Hold.of(capi, byHand, now).tainted()).isNull();
    MachinePool queued = taintedAt("2026-11-29T08:00:20Z");
    assertThat(DrainDecision.Hold.of(capi, queued, now).held())
        .isEqualTo(java.time.Duration.ofSeconds(10));
  }

  @Test
  void aliveMachineGetsWhatIsMissingOfFinalizerAndHook() {
    assertThat(
            DrainDecision.next(
                in(capiMachine("pool-a", false, List.of(), Map.of()), null, List.of())))
        .isEqualTo(new DrainStep.EnsureFinalizerAndHook(true, true));
    assertThat(
            DrainDecision.next(
                in(
                    capiMachine("pool-a", false, List.of(Names.CLEANUP_FINALIZER), Map.of()),
                    null,
                    List.of())))
        .isEqualTo(new DrainStep.EnsureFinalizerAndHook(false, true));
    assertThat(DrainDecision.next(in(marked("pool-a", false), null, List.of())))
        .isEqualTo(new DrainStep.Nothing());
  }

  @Test
  void deletingMachineWithoutOurFinalizerIsLeftAlone() {
    var m = capiMachine("pool-a", true, List.of(Names.CAPI_MACHINE_FINALIZER), Map.of());
    assertThat(DrainDecision.next(in(m, TAINTED, List.of()))).isEqualTo(new DrainStep.Nothing());
  }

  /**
   * Someone removed our finalizer from a deleting Machine (a forced deletion): its hook, left
   * alone, would hold CAPI for good with nothing acting on it (fresh eyes: 16 minutes, no alert).
   */
  @Test
  void deletingMachineWhoseFinalizerSomeoneRemovedHasItsHookReleasedWithAWarning() {
    var m = withoutOurFinalizer("pool-a");
    var blocking =
        List.of(dev.ironcore.maintenance.controller.Fixtures.machine("vm-1", "pool-a", false));
    assertThat(DrainDecision.next(in(m, TAINTED, blocking)))
        .isEqualTo(new DrainStep.Release(DrainDecision.FINALIZER_REMOVED));
    var outcome =
        DrainDecision.decide(
            in(m, TAINTED, blocking), DrainPolicy.defaults(), java.time.Clock.systemUTC());
    assertThat(outcome.condition()).isNull();
    assertThat(outcome.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo("Warning");
              assertThat(e.reason()).isEqualTo("DrainCancelled");
              assertThat(e.when()).isEqualTo(DrainEvent.When.BEFORE_WRITE);
              assertThat(e.message())
                  .isEqualTo(
                      "finalizer maintenance.ironcore.dev/machinepool-cleanup was removed"
                          + " during the deletion, not by this controller: drain cancelled,"
                          + " releasing the pre-drain hook, so CAPI may drain and delete the"
                          + " node; Machines still bound to pool pool-a are not waited for; its"
                          + " maintenance.ironcore.dev taints stay: remove them if the node"
                          + " stays in service");
            });
  }

  /** A deleting CAPI Machine on {@code pool} with our hook and CAPI's finalizer, not ours. */
  private static dev.ironcore.maintenance.api.capi.CapiMachine withoutOurFinalizer(String pool) {
    return capiMachine(
        pool,
        true,
        List.of(Names.CAPI_MACHINE_FINALIZER),
        Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE));
  }

  /**
   * The same without a pool (gone, or never there): the hook is released, the message says nothing
   * of taints (review, session 47: a NullPointerException on every pass held CAPI for good).
   */
  @Test
  void ourFinalizerRemovedWithoutAPoolReleasesTheHook() {
    var m = withoutOurFinalizer("pool-x");
    var outcome =
        DrainDecision.decide(
            new DrainInput(m, true, null, List.of()),
            DrainPolicy.defaults(),
            java.time.Clock.systemUTC());
    assertThat(outcome.step()).isEqualTo(new DrainStep.Release(DrainDecision.FINALIZER_REMOVED));
    assertThat(outcome.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .endsWith("Machines still bound to pool pool-x are not waited for"));
  }

  /**
   * A nodeRef written by hand onto a pool that another, live CAPI Machine uses: draining it would
   * evict that Machine's VMs and delete its pool (fresh eyes, session 32: tainted, drained and
   * deleted). The drain holds its hook without tainting, and names the other Machine.
   */
  @Test
  void aPoolThatALiveCapiMachineAlsoNamesIsNeitherTaintedNorDeleted() {
    var deleting = marked("pool-a", true);
    var shared =
        new DrainInput(
            deleting,
            true,
            pool("pool-a"),
            List.of(machine("vm-1", "pool-a", false)),
            List.of(),
            List.of("ns/b"));
    assertThat(DrainDecision.next(shared))
        .isEqualTo(new DrainStep.SharedPool("pool-a", List.of("ns/b")));
    var clock =
        java.time.Clock.fixed(
            java.time.Instant.parse("2026-11-29T08:01:00Z"), java.time.ZoneOffset.UTC);
    var outcome = DrainDecision.decide(shared, DrainPolicy.defaults(), clock);
    assertThat(outcome.condition().reason()).isEqualTo("DrainHeld");
    assertThat(outcome.condition().message())
        .startsWith("not draining pool pool-a: it is also the status.nodeRef of CAPI Machine ns/b")
        .doesNotContain("taints already on the pool");
    assertThat(outcome.requeueAfter()).isEqualTo(DrainDecision.HOLD_RECHECK);
    assertThat(outcome.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo("Warning");
              assertThat(e.reason()).isEqualTo("PoolShared");
              assertThat(e.when()).isEqualTo(DrainEvent.When.EVERY_PASS);
              assertThat(e.message()).isEqualTo(outcome.condition().message());
            });
    // past --drain-timeout (30 min from the deletion) it is stuck, as a blocked drain
    var late =
        java.time.Clock.fixed(
            java.time.Instant.parse("2026-11-29T08:31:00Z"), java.time.ZoneOffset.UTC);
    var stuck = DrainDecision.decide(shared, DrainPolicy.defaults(), late);
    assertThat(stuck.condition().reason()).isEqualTo("DrainStuck");
    assertThat(stuck.condition().message())
        .contains("longer than --drain-timeout=30m")
        .contains("not draining pool pool-a");
    // a drain already under way when the nodeRef was written stops there too
    var tainted =
        new DrainInput(deleting, true, TAINTED, List.of(), List.of(), List.of("ns/b", "ns/c"));
    assertThat(DrainDecision.next(tainted))
        .isEqualTo(new DrainStep.SharedPool("pool-a", List.of("ns/b", "ns/c")));
    assertThat(DrainDecision.decide(tainted, DrainPolicy.defaults(), clock).condition().message())
        .contains("CAPI Machines ns/b, ns/c")
        .contains("the maintenance.ironcore.dev taints already on the pool stay");
    // the pool gone: nothing to protect, the hook is released as for any missing pool
    var gone = new DrainInput(deleting, true, null, List.of(), List.of(), List.of("ns/b"));
    assertThat(DrainDecision.next(gone)).isEqualTo(new DrainStep.RemoveHook("pool-a", true));
    // hook released (the nodeRef written after it), CAPI done: the pool is kept
    var done = capiMachine("pool-a", true, List.of(Names.CLEANUP_FINALIZER), Map.of());
    var afterHook =
        new DrainInput(done, true, TAINTED, List.of(), List.of(), List.of("ns/b", "ns/c"));
    assertThat(DrainDecision.next(afterHook))
        .isEqualTo(new DrainStep.SparePool("pool-a", List.of("ns/b", "ns/c")));
    assertThat(
            DrainDecision.decide(afterHook, DrainPolicy.defaults(), java.time.Clock.systemUTC())
                .events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo("PoolKept");
              assertThat(e.when()).isEqualTo(DrainEvent.When.BEFORE_WRITE);
              assertThat(e.message())
                  .isEqualTo(
                      "CAPI is done with the node, but MachinePool pool-a is also the"
                          + " status.nodeRef of CAPI Machines ns/b, ns/c, not being deleted: not"
                          + " deleting it; its maintenance.ironcore.dev taints stay: remove them if"
                          + " that Machine's node stays in service");
            });
    // without another live CAPI Machine, the same pool is deleted
    assertThat(DrainDecision.next(in(done, TAINTED, List.of())))
        .isEqualTo(new DrainStep.DeletePool("pool-a"));
    // that pool object only: the step carries its uid (PoolDelete checks it against the API server)
    MachinePool withUid = pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0]));
    withUid.getMetadata().setUid("0a1b2c3d-0000-4000-8000-000000000001");
    assertThat(DrainDecision.next(in(done, withUid, List.of())))
        .isEqualTo(new DrainStep.DeletePool("pool-a", "0a1b2c3d-0000-4000-8000-000000000001"));
  }

  @Test
  void aPoolCreatedAfterTheDeletionAndNeverTaintedIsKeptNotDeleted() {
    // hook released, CAPI done: only our finalizer left (Fixtures' deletion: 2026-11-29T08:00:00Z)
    var done = capiMachine("pool-a", true, List.of(Names.CLEANUP_FINALIZER), Map.of());
    MachinePool recreated = dev.ironcore.maintenance.controller.Fixtures.pool("pool-a");
    recreated.getMetadata().setCreationTimestamp("2026-11-29T08:05:00Z");
    assertThat(DrainDecision.next(in(done, recreated, List.of())))
        .isEqualTo(new DrainStep.SparePool("pool-a"));
    var outcome =
        DrainDecision.decide(
            in(done, recreated, List.of()), DrainPolicy.defaults(), java.time.Clock.systemUTC());
    assertThat(outcome.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo("PoolKept");
              assertThat(e.type()).isEqualTo("Warning");
              assertThat(e.message())
                  .startsWith(
                      "MachinePool pool-a was created at 2026-11-29T08:05:00Z, after this CAPI"
                          + " Machine's deletion, and never drained: not deleting it");
            });

    // waiting for CAPI on the re-created pool: it is not told it was drained
    var waiting =
        capiMachine(
            "pool-a",
            true,
            List.of(Names.CAPI_MACHINE_FINALIZER, Names.CLEANUP_FINALIZER),
            Map.of());
    var wait =
        DrainDecision.decide(
            in(waiting, recreated, List.of()), DrainPolicy.defaults(), java.time.Clock.systemUTC());
    assertThat(wait.step()).isEqualTo(new DrainStep.WaitForCapi("pool-a"));
    assertThat(wait.condition()).as("no Drained on a pool never drained").isNull();

    // created in the deletion's second, before it, or tainted by this drain: the drained pool
    for (String created : List.of("2026-11-29T08:00:00Z", "2026-11-29T07:00:00Z")) {
      MachinePool p = dev.ironcore.maintenance.controller.Fixtures.pool("pool-a");
      p.getMetadata().setCreationTimestamp(created);
      assertThat(DrainDecision.next(in(done, p, List.of())))
          .as(created)
          .isEqualTo(new DrainStep.DeletePool("pool-a"));
    }
    MachinePool tainted =
        dev.ironcore.maintenance.controller.Fixtures.pool(
            "pool-a", DrainDecision.MAINTENANCE_TAINTS.toArray(new Taint[0]));
    tainted.getMetadata().setCreationTimestamp("2026-11-29T08:05:00Z");
    assertThat(DrainDecision.next(in(done, tainted, List.of())))
        .isEqualTo(new DrainStep.DeletePool("pool-a"));
  }

  @Test
  void deletingMachineWithoutNodeRefIsReleasedAtOnce() {
    assertThat(DrainDecision.next(in(marked(null, true), null, List.of())))
        .isEqualTo(new DrainStep.Release(DrainDecision.NO_NODE));
  }

  @Test
  void missingPoolCountsAsDrained() {
    assertThat(DrainDecision.next(in(marked("pool-a", true), null, List.of())))
        .isEqualTo(new DrainStep.RemoveHook("pool-a", true));
  }

  @Test
  void addsOnlyTheMaintenanceTaintsThePoolLacksKeepingOthers() {
    Taint other = new Taint("gpu", "a100", "NoSchedule");
    Taint noSchedule = new Taint(Names.MAINTENANCE_TAINT_KEY, "", "NoSchedule");
    var step =
        DrainDecision.next(
            in(marked("pool-a", true), pool("pool-a", other, noSchedule), List.of()));
    assertThat(step).isInstanceOf(DrainStep.AddTaints.class);
    var missing = ((DrainStep.AddTaints) step).missing();
    assertThat(missing).hasSize(1);
    assertThat(missing.get(0).getEffect()).isEqualTo("NoExecute");
  }

  @Test
  void holdsWhileANonToleratingMachineIsBoundEvenIfShuttingDown() {
    var step =
        DrainDecision.next(
            in(
                marked("pool-a", true),
                TAINTED,
                List.of(
                    machine("vm-2", "pool-a", true),
                    machine("vm-1", "pool-a", false),
                    machine("vm-3", "pool-a", false, toleratesMaintenance()))));
    assertThat(step)
        .isEqualTo(
            new DrainStep.Hold("pool-a", List.of("ns/vm-1 (to be evicted)", "ns/vm-2 (deleting)")));
  }

  @Test
  void releasesTheHookWhenOnlyToleratingMachinesRemain() {
    var step =
        DrainDecision.next(
            in(
                marked("pool-a", true),
                TAINTED,
                List.of(machine("vm-3", "pool-a", false, toleratesMaintenance()))));
    assertThat(step).isEqualTo(new DrainStep.RemoveHook("pool-a", false));
  }

  @Test
  void afterTheHookWaitsForCapiThenDeletesPoolThenDropsFinalizer() {
    var hookGone =
        capiMachine(
            "pool-a",
            true,
            List.of(Names.CAPI_MACHINE_FINALIZER, Names.CLEANUP_FINALIZER),
            Map.of());
    assertThat(DrainDecision.next(in(hookGone, TAINTED, List.of())))
        .isEqualTo(new DrainStep.WaitForCapi("pool-a"));

    var capiDone =
        capiMachine(
            "pool-a", true, List.of("someone.else/keep", Names.CLEANUP_FINALIZER), Map.of());
    assertThat(DrainDecision.next(in(capiDone, TAINTED, List.of())))
        .isEqualTo(new DrainStep.DeletePool("pool-a"));

    MachinePool deleting = pool("pool-a");
    deleting.getMetadata().setDeletionTimestamp("2026-11-29T08:01:00Z");
    assertThat(DrainDecision.next(in(capiDone, deleting, List.of())))
        .isEqualTo(new DrainStep.RemoveFinalizer("pool-a"));
    assertThat(DrainDecision.next(in(capiDone, null, List.of())))
        .isEqualTo(new DrainStep.RemoveFinalizer("pool-a"));
  }

  @Test
  void neverDeletesThePoolWhileTheHookIsHeld() {
    var held =
        capiMachine(
            "pool-a",
            true,
            List.of(Names.CLEANUP_FINALIZER),
            Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE));
    var step = DrainDecision.next(in(held, TAINTED, List.of(machine("vm-1", "pool-a", false))));
    assertThat(step).isNotInstanceOf(DrainStep.DeletePool.class).isInstanceOf(DrainStep.Hold.class);
  }

  /**
   * CAPI holds the deletion on the hook's key whatever its value (fresh eyes: a value changed
   * during the deletion made the drain report the hook released while it stayed, holding CAPI for
   * good).
   */
  @Test
  void ourHookWithAnotherValueStillHoldsAndIsReleasedWhenDrained() {
    var changed =
        capiMachine(
            "pool-a",
            true,
            List.of(Names.CLEANUP_FINALIZER),
            Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, "changed-by-someone"));
    assertThat(DrainDecision.next(in(changed, TAINTED, List.of(machine("vm-1", "pool-a", false)))))
        .isInstanceOf(DrainStep.Hold.class);
    assertThat(DrainDecision.next(in(changed, TAINTED, List.of())))
        .isEqualTo(new DrainStep.RemoveHook("pool-a", false));
    var notDeleting =
        capiMachine(
            "pool-a",
            false,
            List.of(Names.CLEANUP_FINALIZER),
            Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, "changed-by-someone"));
    assertThat(DrainDecision.next(in(notDeleting, TAINTED, List.of())))
        .as("set back to our value before any deletion")
        .isEqualTo(new DrainStep.EnsureFinalizerAndHook(false, true));
  }

  @Test
  void aMaintenanceTaintWithAValueIsTheOneMachinesMustTolerate() {
    Taint withValue = new Taint(Names.MAINTENANCE_TAINT_KEY, "foo", "NoExecute");
    MachinePool pool =
        pool("pool-a", new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoSchedule"), withValue);
    var toleratesFoo =
        new dev.ironcore.maintenance.api.compute.Toleration(
            Names.MAINTENANCE_TAINT_KEY, "Equal", "foo", "NoExecute");
    var step =
        DrainDecision.next(
            in(
                marked("pool-a", true),
                pool,
                List.of(
                    machine("vm-foo", "pool-a", false, toleratesFoo),
                    machine("vm-plain", "pool-a", false))));
    assertThat(step)
        .as("vm-foo tolerates the pool's actual taint, only vm-plain blocks")
        .isEqualTo(new DrainStep.Hold("pool-a", List.of("ns/vm-plain (to be evicted)")));
    var drained =
        DrainDecision.next(
            in(
                marked("pool-a", true),
                pool,
                List.of(machine("vm-foo", "pool-a", false, toleratesFoo))));
    assertThat(drained).isEqualTo(new DrainStep.RemoveHook("pool-a", false));
  }

  @Test
  void aMachineTheSelectorNoLongerSelectsIsReleasedAliveOrDeleting() {
    assertThat(
            DrainDecision.next(new DrainInput(marked("pool-a", false), false, TAINTED, List.of())))
        .isEqualTo(new DrainStep.Release(DrainDecision.NOT_SELECTED));
    assertThat(
            DrainDecision.next(
                new DrainInput(
                    marked("pool-a", true),
                    false,
                    TAINTED,
                    List.of(machine("vm-1", "pool-a", false)))))
        .isEqualTo(new DrainStep.Release(DrainDecision.NOT_SELECTED));
    assertThat(
            DrainDecision.next(
                new DrainInput(
                    capiMachine("pool-a", false, List.of(), Map.of()), false, null, List.of())))
        .as("never marked: nothing to do")
        .isEqualTo(new DrainStep.Nothing());
  }
}

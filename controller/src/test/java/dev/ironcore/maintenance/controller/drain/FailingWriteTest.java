package dev.ironcore.maintenance.controller.drain;

import static dev.ironcore.maintenance.controller.Fixtures.marked;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** {@link FailingWrite}: a drain whose own write keeps failing, as the pool shows it. */
class FailingWriteTest {
  /** Fixtures' deletionTimestamp. */
  private static final Instant DELETED = Instant.parse("2026-11-29T08:00:00Z");

  private static final DrainPolicy TEN_MINUTES =
      DrainPolicy.defaults().withDrainTimeout(Duration.ofMinutes(10));

  private static final String TAINTING_FAILS =
      "adding the maintenance taints failed, retrying (the DrainWriteFailed events of CAPI Machine"
          + " ns/capi-1 say why); nothing is evicted until they are on, and the pre-drain hook is"
          + " held";

  private static Clock at(Duration sinceDeletion) {
    return Clock.fixed(DELETED.plus(sinceDeletion), ZoneOffset.UTC);
  }

  /** The taint write of an untainted pool's drain failing {@code sinceDeletion} after it. */
  private static DrainOutcome taintWriteFailing(Duration sinceDeletion) {
    return FailingWrite.outcome(
        marked("pool-a", true), pool("pool-a"), addTaints(), TEN_MINUTES, at(sinceDeletion));
  }

  private static DrainStep addTaints() {
    return new DrainStep.AddTaints("pool-a", DrainDecision.MAINTENANCE_TAINTS);
  }

  @Test
  void aFailingTaintWriteWithinTheTimeoutIsDrainingNamingTheWrite() {
    var o = taintWriteFailing(Duration.ofMinutes(9));
    assertThat(o.condition()).isEqualTo(MaintenanceCondition.draining(TAINTING_FAILS));
    assertThat(o.events()).isEmpty();
    assertThat(o.requeueAfter()).isEqualTo(DrainDecision.HOLD_RECHECK);
  }

  /**
   * Without a taint there is no {@code timeAdded}: the timeout counts from the CAPI Machine's
   * deletion, and past it the drain is stuck like a blocked one (the old code showed {@code
   * Draining} for good, and the drains-stuck gauge and its alert never saw it).
   */
  @Test
  void aTaintWriteFailingLongerThanTheTimeoutIsStuckWithAWarningOnTheTransition() {
    var o = taintWriteFailing(Duration.ofMinutes(10));
    String stuck =
        "drain of pool pool-a has held the pre-drain hook longer than --drain-timeout=10m0s (CAPI"
            + " Machine deleted at 2026-11-29T08:00:00Z); the hook is kept; "
            + TAINTING_FAILS;
    assertThat(o.condition()).isEqualTo(MaintenanceCondition.stuck(stuck));
    assertThat(o.events())
        .containsExactly(
            DrainEvent.warning(
                DrainEvent.Subject.CAPI_MACHINE,
                DrainEvent.STUCK,
                stuck,
                DrainEvent.When.REASON_CHANGED));
  }

  /** A refused hook removal counts from the drain's taint, as the hold before it did. */
  @Test
  void aFailingHookRemovalCountsFromTheTaint() {
    Taint noExecute = DrainDecision.MAINTENANCE_TAINTS.get(1);
    Taint tainted = new Taint(noExecute.getKey(), null, noExecute.getEffect());
    tainted.setTimeAdded(DELETED.plus(Duration.ofMinutes(5)).toString());
    MachinePool pool = pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.get(0), tainted);
    DrainStep removeHook = new DrainStep.RemoveHook("pool-a", false);

    var within =
        FailingWrite.outcome(
            marked("pool-a", true), pool, removeHook, TEN_MINUTES, at(Duration.ofMinutes(14)));
    assertThat(within.condition().reason()).isEqualTo(MaintenanceCondition.DRAINING_REASON);
    assertThat(within.condition().message())
        .isEqualTo(
            "no bound Machine blocks the maintenance taint; removing the pre-drain hook from CAPI"
                + " Machine ns/capi-1 failed, retrying (its DrainWriteFailed events say why)");
    assertThat(within.requeueAfter()).isEqualTo(DrainDecision.HOLD_RECHECK);

    var past =
        FailingWrite.outcome(
            marked("pool-a", true), pool, removeHook, TEN_MINUTES, at(Duration.ofMinutes(15)));
    assertThat(past.condition().reason()).isEqualTo(MaintenanceCondition.STUCK_REASON);
    assertThat(past.condition().message())
        .contains("(drain started at 2026-11-29T08:05:00Z)")
        .endsWith("failed, retrying (its DrainWriteFailed events say why)");
  }

  @Test
  void aZeroTimeoutIsNeverStuckAndAMissingPoolShowsNothing() {
    var off =
        FailingWrite.outcome(
            marked("pool-a", true),
            pool("pool-a"),
            addTaints(),
            DrainPolicy.defaults().withDrainTimeout(Duration.ZERO),
            at(Duration.ofDays(3)));
    assertThat(off.condition().reason()).isEqualTo(MaintenanceCondition.DRAINING_REASON);
    assertThat(off.events()).isEmpty();

    var noPool =
        FailingWrite.outcome(
            marked("pool-a", true), null, addTaints(), TEN_MINUTES, at(Duration.ofHours(1)));
    assertThat(noPool.condition()).isNull();
    assertThat(noPool.events()).isEmpty();
  }

  @Test
  void anotherStepIsAProgrammingError() {
    assertThatThrownBy(
            () ->
                FailingWrite.outcome(
                    marked("pool-a", true),
                    pool("pool-a"),
                    new DrainStep.Nothing(),
                    TEN_MINUTES,
                    at(Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a drain write");
  }

  /**
   * A write that got no answer is not followed by the condition's write to the same API server,
   * which would wait out a second timeout (70 s) on the drain worker.
   */
  @Test
  void aWriteWithoutAnswerIsShownOnlyWhereTheConditionGoesToAnotherApiServer() {
    DrainStep removeHook = new DrainStep.RemoveHook("pool-a", false);
    assertThat(FailingWrite.shown(addTaints(), false, true)).as("answered 500").isTrue();
    assertThat(FailingWrite.shown(removeHook, false, false)).isTrue();
    assertThat(FailingWrite.shown(addTaints(), true, false))
        .as("the taints go to the IronCore API server, as the condition")
        .isFalse();
    assertThat(FailingWrite.shown(removeHook, true, true)).as("one API server").isFalse();
    assertThat(FailingWrite.shown(removeHook, true, false))
        .as("the CAPI API server did not answer; the IronCore one may")
        .isTrue();
  }
}

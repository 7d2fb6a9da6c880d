package dev.ironcore.maintenance.controller.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PoolHealthDecisionTest {
  private static final Duration GRACE = Duration.ofSeconds(50);
  private static final Instant T0 = Instant.parse("2026-11-29T08:00:00Z");
  private static final PoolHealthObservation READY =
      new PoolHealthObservation("2026-01-01T00:00:00Z", "True", 4L);

  @Test
  void firstSightingStartsTheTimerAndRequeuesAtTheDeadline() {
    var out = PoolHealthDecision.decide(null, READY, T0, GRACE);
    assertThat(out.markUnknown()).isFalse();
    assertThat(out.seen().lastChange()).isEqualTo(T0);
    assertThat(out.requeueAfter()).isEqualTo(GRACE);
  }

  @Test
  void theShortestTimeBetweenTwoRenewalsSeenIsKept() {
    var r0 = new PoolHealthObservation("2025-12-31T23:59:50Z", "True", 4L);
    var r1 = new PoolHealthObservation("2026-01-01T00:00:00Z", "True", 4L);
    var r2 = new PoolHealthObservation("2026-01-01T00:00:10Z", "True", 4L);
    var r4 = new PoolHealthObservation("2026-01-01T00:00:30Z", "True", 4L); // r3 not seen
    var back = new PoolHealthObservation("2025-01-01T00:00:00Z", "True", 4L);
    var zeroth = PoolHealthDecision.decide(null, r0, T0.minusSeconds(10), GRACE);
    var first = PoolHealthDecision.decide(zeroth.seen(), r1, T0, GRACE);
    assertThat(first.seen().renewInterval()).as("one interval alone is not trusted").isNull();
    var second = PoolHealthDecision.decide(first.seen(), r2, T0.plusSeconds(10), GRACE);
    assertThat(second.seen().renewInterval()).isEqualTo(Duration.ofSeconds(10));
    var late = PoolHealthDecision.decide(second.seen(), r4, T0.plusSeconds(31), GRACE);
    assertThat(late.seen().renewInterval())
        .as("a pass that saw two renewals as one does not lengthen it")
        .isEqualTo(Duration.ofSeconds(10));
    var same = PoolHealthDecision.decide(late.seen(), r4, T0.plusSeconds(32), GRACE);
    assertThat(same.seen().renewInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(
            PoolHealthDecision.decide(same.seen(), back, T0.plusSeconds(33), GRACE)
                .seen()
                .renewInterval())
        .as("a renewTime going backwards is no interval")
        .isEqualTo(Duration.ofSeconds(10));
  }

  /**
   * Fresh eyes (session 42): one early renewal (an agent restarting) set the interval for good, so
   * a pool whose agent renews less often than the grace period was no longer counted as flapping.
   * Only the latest intervals count.
   */
  @Test
  void anEarlyRenewalAgesOutAfterTheLatestFewIntervals() {
    Instant renewed = Instant.parse("2026-01-01T00:00:00Z");
    var seen = PoolHealthDecision.decide(null, renewal(renewed), T0, GRACE).seen();
    for (int i = 0; i < 2; i++) {
      seen =
          PoolHealthDecision.decide(seen, renewal(renewed = renewed.plusSeconds(60)), T0, GRACE)
              .seen();
    }
    assertThat(seen.renewInterval()).isEqualTo(Duration.ofSeconds(60));
    seen =
        PoolHealthDecision.decide(seen, renewal(renewed = renewed.plusSeconds(2)), T0, GRACE)
            .seen();
    assertThat(seen.renewInterval())
        .as("the restart's early renewal")
        .isEqualTo(Duration.ofSeconds(2));
    for (int i = 1; i < PoolHealthDecision.RECENT_INTERVALS; i++) {
      seen =
          PoolHealthDecision.decide(seen, renewal(renewed = renewed.plusSeconds(60)), T0, GRACE)
              .seen();
      assertThat(seen.renewInterval()).as("after %d more", i).isEqualTo(Duration.ofSeconds(2));
    }
    seen = PoolHealthDecision.decide(seen, renewal(renewed.plusSeconds(60)), T0, GRACE).seen();
    assertThat(seen.renewInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(seen.recentIntervals()).hasSize(PoolHealthDecision.RECENT_INTERVALS);
  }

  /**
   * Fresh eyes (session 43): a renewTime set an hour ahead once (an agent's clock jumping), then no
   * renewal, was read as an agent renewing every hour: the pool counted as flapping for that hour
   * and its PoolUnknown Event advised raising the grace period above an hour. One interval alone is
   * no renew interval.
   */
  @Test
  void oneJumpOfTheRenewTimeIsNoRenewInterval() {
    Instant renewed = Instant.parse("2026-01-01T00:00:00Z");
    var seen = PoolHealthDecision.decide(null, renewal(renewed), T0, GRACE).seen();
    seen =
        PoolHealthDecision.decide(
                seen, renewal(renewed.plusSeconds(3603)), T0.plusSeconds(3), GRACE)
            .seen();
    assertThat(seen.recentIntervals()).containsExactly(Duration.ofSeconds(3603));
    assertThat(seen.renewInterval()).isNull();
  }

  private static PoolHealthObservation renewal(Instant renewTime) {
    return new PoolHealthObservation(renewTime.toString(), "True", 4L);
  }

  @Test
  void nothingMovingForTheGracePeriodMarksUnknownOnce() {
    var first = PoolHealthDecision.decide(null, READY, T0, GRACE);
    var before = PoolHealthDecision.decide(first.seen(), READY, T0.plusSeconds(49), GRACE);
    assertThat(before.markUnknown()).isFalse();
    assertThat(before.requeueAfter()).isEqualTo(Duration.ofSeconds(1));
    var at = PoolHealthDecision.decide(before.seen(), READY, T0.plusSeconds(50), GRACE);
    assertThat(at.markUnknown()).isTrue();
  }

  @Test
  void anApiServerThatDidNotAnswerRestartsTheGracePeriodWhenItAnswersAgain() {
    var first = PoolHealthDecision.decide(null, READY, T0, GRACE);
    Instant back = T0.plusSeconds(70); // down from T0 + 10 s to T0 + 70 s: no agent could renew
    var after = PoolHealthDecision.decide(first.seen(), READY, T0.plusSeconds(71), GRACE, back);
    assertThat(after.markUnknown()).isFalse();
    assertThat(after.seen().lastChange()).as("what was seen stays").isEqualTo(T0);
    assertThat(after.requeueAfter()).isEqualTo(Duration.ofSeconds(49));
    assertThat(
            PoolHealthDecision.decide(after.seen(), READY, T0.plusSeconds(120), GRACE, back)
                .markUnknown())
        .isTrue();
    // an outage before the pool's last change changes nothing
    assertThat(
            PoolHealthDecision.decide(
                    first.seen(), READY, T0.plusSeconds(50), GRACE, T0.minusSeconds(5))
                .markUnknown())
        .isTrue();
  }

  @Test
  void aLeaseRenewalRestartsTheTimerWhateverTheTimestampSays() {
    var first = PoolHealthDecision.decide(null, READY, T0, GRACE);
    // renewTime far in the past: only equality matters, never the local clock
    var renewed = new PoolHealthObservation("1999-01-01T00:00:00Z", "True", 4L);
    var out = PoolHealthDecision.decide(first.seen(), renewed, T0.plusSeconds(45), GRACE);
    assertThat(out.seen().lastChange()).isEqualTo(T0.plusSeconds(45));
    assertThat(
            PoolHealthDecision.decide(out.seen(), renewed, T0.plusSeconds(90), GRACE).markUnknown())
        .isFalse();
  }

  @Test
  void aReadyConditionChangeOfStatusOrGenerationRestartsTheTimer() {
    var first = PoolHealthDecision.decide(null, READY, T0, GRACE);
    var newGeneration = new PoolHealthObservation(READY.leaseRenewTime(), "True", 5L);
    assertThat(
            PoolHealthDecision.decide(first.seen(), newGeneration, T0.plusSeconds(40), GRACE)
                .seen()
                .lastChange())
        .isEqualTo(T0.plusSeconds(40));
    var newStatus = new PoolHealthObservation(READY.leaseRenewTime(), "False", 4L);
    assertThat(
            PoolHealthDecision.decide(first.seen(), newStatus, T0.plusSeconds(40), GRACE)
                .seen()
                .lastChange())
        .isEqualTo(T0.plusSeconds(40));
  }

  @Test
  void alreadyUnknownIsNotWrittenAgain() {
    var unknown = new PoolHealthObservation(null, "Unknown", 4L);
    var first = PoolHealthDecision.decide(null, unknown, T0, GRACE);
    var later = PoolHealthDecision.decide(first.seen(), unknown, T0.plusSeconds(500), GRACE);
    assertThat(later.markUnknown()).isFalse();
    assertThat(later.requeueAfter()).isEqualTo(GRACE);
  }

  @Test
  void aPoolWithoutLeaseOrConditionIsMarkedAfterTheGracePeriod() {
    var none = new PoolHealthObservation(null, null, null);
    var first = PoolHealthDecision.decide(null, none, T0, GRACE);
    assertThat(
            PoolHealthDecision.decide(first.seen(), none, T0.plusSeconds(50), GRACE).markUnknown())
        .isTrue();
  }
}

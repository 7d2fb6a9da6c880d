package dev.ironcore.maintenance.controller.eviction;

import static dev.ironcore.maintenance.controller.Fixtures.machine;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.Toleration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Delayed eviction: tolerationSeconds counted from the taint's timeAdded. */
class DelayedEvictionDecisionTest {
  private static final Instant ADDED = Instant.parse("2026-11-30T16:00:00Z");
  private static final Instant SEEN = Instant.parse("2026-11-30T17:00:00Z");

  private static Taint taint(String key, String timeAdded) {
    Taint t = new Taint(key, null, "NoExecute");
    t.setTimeAdded(timeAdded);
    return t;
  }

  private static Toleration tolerates(String key, Long seconds) {
    Toleration t = new Toleration(key, "Exists", null, "NoExecute");
    t.setTolerationSeconds(seconds);
    return t;
  }

  private static EvictionDecision.Outcome decide(
      Instant now, Taint taint, boolean delayed, Toleration... tolerations) {
    return EvictionDecision.decide(
        machine("vm", "pool", false, tolerations), pool("pool", taint), now, t -> SEEN, delayed);
  }

  @Test
  void waitsUntilTimeAddedPlusTheSecondsThenEvicts() {
    Taint t = taint("k", ADDED.toString());
    EvictionDecision.Outcome before = decide(ADDED.plusSeconds(4), t, true, tolerates("k", 5L));
    assertThat(before.evict()).isFalse();
    assertThat(before.deadline()).isEqualTo(ADDED.plusSeconds(5));
    EvictionDecision.Outcome at = decide(ADDED.plusSeconds(5), t, true, tolerates("k", 5L));
    assertThat(at.evict()).isTrue();
    assertThat(at.expired()).isTrue();
    assertThat(at.untolerated()).containsExactly(t);
  }

  @Test
  void theFirstMatchingTolerationCountsAsInKubernetes() {
    Taint t = taint("k", ADDED.toString());
    assertThat(decide(ADDED, t, true, tolerates("k", 60L), tolerates("", 10L)).deadline())
        .isEqualTo(ADDED.plusSeconds(60));
    // fresh eyes: [{k, 1 s}, {k}] was tolerated for good; Kubernetes evicts it after 1 s
    EvictionDecision.Outcome timed =
        decide(ADDED.plusSeconds(1), t, true, tolerates("k", 1L), tolerates("k", null));
    assertThat(timed.evict()).isTrue();
    EvictionDecision.Outcome forever =
        decide(ADDED.plusSeconds(999_999), t, true, tolerates("k", null), tolerates("k", 1L));
    assertThat(forever.evict()).isFalse();
    assertThat(forever.deadline()).isNull();
  }

  @Test
  void zeroOrNegativeSecondsEvictAtOnce() {
    Taint t = taint("k", ADDED.toString());
    assertThat(decide(ADDED, t, true, tolerates("k", 0L)).evict()).isTrue();
    assertThat(decide(ADDED.minusSeconds(100), t, true, tolerates("k", -5L)).evict()).isTrue();
    assertThat(decide(ADDED, t, true, tolerates("k", Long.MIN_VALUE)).evict())
        .as("int64's least value is a legal tolerationSeconds, not 'forever' (fresh eyes)")
        .isTrue();
  }

  @Test
  void hugeSecondsNeitherOverflowNorEvict() {
    Taint t = taint("k", ADDED.toString());
    EvictionDecision.Outcome o = decide(ADDED, t, true, tolerates("k", Long.MAX_VALUE));
    assertThat(o.evict()).isFalse();
    assertThat(o.deadline()).isEqualTo(Instant.MAX);
    assertThat(EvictionReconciler.delay(ADDED, o.deadline()))
        .isEqualTo(EvictionReconciler.LONGEST_WAIT);
  }

  @Test
  void withoutTimeAddedTheFirstSightingCounts() {
    for (String timeAdded : new String[] {null, "", "not-a-time"}) {
      assertThat(decide(SEEN, taint("k", timeAdded), true, tolerates("k", 5L)).deadline())
          .as(String.valueOf(timeAdded))
          .isEqualTo(SEEN.plusSeconds(5));
    }
    assertThat(
            decide(ADDED, taint("k", "2026-11-30T17:00:00+01:00"), true, tolerates("k", 5L))
                .deadline())
        .isEqualTo(ADDED.plusSeconds(5));
  }

  @Test
  void untoleratedTaintsEvictAtOnceWhateverElseIsPending() {
    Taint t = taint("k", ADDED.toString());
    EvictionDecision.Outcome o =
        EvictionDecision.decide(
            machine("vm", "pool", false, tolerates("k", 5L)),
            pool("pool", t, taint("other", ADDED.toString())),
            ADDED,
            x -> SEEN,
            true);
    assertThat(o.evict()).isTrue();
    assertThat(o.expired()).isFalse();
    assertThat(o.untolerated()).extracting(Taint::getKey).containsExactly("other");
  }

  @Test
  void withoutDelayedEvictionAMatchingTolerationToleratesForGood() {
    Taint t = taint("k", ADDED.toString());
    EvictionDecision.Outcome o = decide(ADDED.plusSeconds(3600), t, false, tolerates("k", 5L));
    assertThat(o.evict()).isFalse();
    assertThat(o.deadline()).isNull();
  }

  @Test
  void sightingsAreForgottenWhenTheTaintGoes() {
    TaintSightings s = new TaintSightings();
    Taint t = taint("k", null);
    assertThat(s.firstSeen("p", t, ADDED)).isEqualTo(ADDED);
    assertThat(s.firstSeen("p", t, SEEN)).isEqualTo(ADDED);
    s.retain("p", java.util.List.of(taint("other", null)));
    assertThat(s.size()).isZero();
    assertThat(s.firstSeen("p", t, SEEN)).isEqualTo(SEEN);
    s.retain("p", null);
    assertThat(s.size()).isZero();
  }
}

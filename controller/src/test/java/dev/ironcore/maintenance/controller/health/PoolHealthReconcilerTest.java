package dev.ironcore.maintenance.controller.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code PoolUnknown} Event's message ({@link PoolHealthReconciler#silence}). */
class PoolHealthReconcilerTest {
  private static final String RENEWED = "2026-12-05T12:00:00Z";

  @Test
  void theMessageNamesTheGracePeriodAndTheLastRenewal() {
    assertThat(
            PoolHealthReconciler.silence(
                Duration.ofSeconds(50), RENEWED, Duration.ofSeconds(10), "pool-1", true))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (50 s); Lease"
                + " ironcore-machinepool-lease/pool-1 last renewed at 2026-12-05T12:00:00Z");
    assertThat(PoolHealthReconciler.silence(Duration.ofSeconds(50), null, null, "pool-1", true))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (50 s); no renewTime in"
                + " Lease ironcore-machinepool-lease/pool-1 (never renewed, or removed)");
    // fresh eyes (session 43): a deleted Lease was reported as "none, or never renewed"
    assertThat(PoolHealthReconciler.silence(Duration.ofSeconds(50), null, null, "pool-1", false))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (50 s); Lease"
                + " ironcore-machinepool-lease/pool-1 does not exist (deleted, or never created)");
  }

  @Test
  void aGracePeriodWithMillisecondsIsPrintedWithThem() {
    // fresh eyes: 2500ms was printed as "2 s"
    assertThat(PoolHealthReconciler.silence(Duration.ofMillis(2500), null, null, "p", true))
        .startsWith("no Lease renewal or Ready change within the grace period (2.5 s); ");
    assertThat(PoolHealthReconciler.seconds(Duration.ofMillis(50))).isEqualTo("0.05 s");
    assertThat(PoolHealthReconciler.seconds(Duration.ofMinutes(2))).isEqualTo("120 s");
    // the renew interval, rounded: the shortest seen shrinks by milliseconds between flaps
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(2499))).isEqualTo("2.5 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(2509))).isEqualTo("2.5 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(10_119))).isEqualTo("10 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(9_960))).isEqualTo("10 s");
    // fresh eyes (session 38): an agent renewing every 10 s was seen at 11 s first, then 10.2 s
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(11_020))).isEqualTo("10 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(2_440))).isEqualTo("2.5 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(31_000))).isEqualTo("30 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(400))).isEqualTo("0.5 s");
    assertThat(PoolHealthReconciler.roughly(Duration.ofMillis(100))).isEqualTo("0.5 s");
  }

  @Test
  void anAgentThatRenewsNoMoreOftenThanTheGracePeriodIsNamedAsTheLikelyCause() {
    // a live agent renewing every 10 s under a grace period of 5 s: its pool goes Unknown
    // between renewals, again and again
    assertThat(
            PoolHealthReconciler.silence(
                Duration.ofSeconds(5), RENEWED, Duration.ofSeconds(10), "pool-1", true))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (5 s); its agent renewed"
                + " Lease ironcore-machinepool-lease/pool-1 about every 10 s: an agent that"
                + " renews that seldom has its pool go Unknown between renewals while it is alive"
                + " (set --machine-pool-lifecycle-grace-period above its renew interval)");
    // the same text for every flap (no renewTime), so the recorder counts them on one Event
    assertThat(
            PoolHealthReconciler.silence(
                Duration.ofSeconds(5),
                "2026-12-05T12:00:10Z",
                Duration.ofSeconds(10),
                "pool-1",
                true))
        .isEqualTo(
            PoolHealthReconciler.silence(
                Duration.ofSeconds(5), RENEWED, Duration.ofSeconds(10), "pool-1", true));
    assertThat(
            PoolHealthReconciler.silence(
                Duration.ofSeconds(10), RENEWED, Duration.ofSeconds(10), "pool-1", true))
        .as("equal")
        .contains("about every 10 s");
    // fresh eyes: the Lease's leaseDurationSeconds said nothing; an agent renewing a 40 s Lease
    // every 10 s under a grace period of 20 s that stops is simply silent
    assertThat(
            PoolHealthReconciler.silence(
                Duration.ofSeconds(20), RENEWED, Duration.ofMillis(9_999), "pool-1", true))
        .doesNotContain("every")
        .contains("last renewed at");
  }
}

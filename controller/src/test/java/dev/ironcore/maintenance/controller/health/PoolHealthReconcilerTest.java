package dev.ironcore.maintenance.controller.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code PoolUnknown} Event's message ({@link PoolHealthReconciler#silence}). */
class PoolHealthReconcilerTest {
  private static final String RENEWED = "2026-12-05T12:00:00Z";

  @Test
  void theMessageNamesTheGracePeriodAndTheLastRenewal() {
    assertThat(PoolHealthReconciler.silence(Duration.ofSeconds(50), RENEWED, 40, "pool-1"))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (50 s); Lease"
                + " ironcore-machinepool-lease/pool-1 last renewed at 2026-12-05T12:00:00Z");
    assertThat(PoolHealthReconciler.silence(Duration.ofSeconds(50), null, null, "pool-1"))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (50 s); no renewTime in"
                + " Lease ironcore-machinepool-lease/pool-1 (none, or never renewed)");
  }

  @Test
  void aLeaseHeldLongerThanTheGracePeriodIsNamedAsTheLikelyCause() {
    // the agent promised its Lease holds 40 s: with a grace period of 20 s its pool goes Unknown
    // between two renewals of a live agent, again and again
    assertThat(PoolHealthReconciler.silence(Duration.ofSeconds(20), RENEWED, 40, "pool-1"))
        .isEqualTo(
            "no Lease renewal or Ready change within the grace period (20 s); Lease"
                + " ironcore-machinepool-lease/pool-1 last renewed at 2026-12-05T12:00:00Z; the Lease holds"
                + " 40 s after each renewal (leaseDurationSeconds), longer than the grace period:"
                + " its agent need not renew within 20 s, so a live agent's pool goes Unknown too"
                + " (set --machine-pool-lifecycle-grace-period above 40s)");
    assertThat(PoolHealthReconciler.silence(Duration.ofMillis(40_500), RENEWED, 40, "pool-1"))
        .as("a grace period just longer than the Lease")
        .doesNotContain("leaseDurationSeconds");
    assertThat(PoolHealthReconciler.silence(Duration.ofSeconds(40), RENEWED, 40, "pool-1"))
        .as("equal")
        .doesNotContain("leaseDurationSeconds");
  }
}

package dev.ironcore.maintenance.controller.informers;

import static dev.ironcore.maintenance.controller.informers.SupervisedInformer.PROBE_EVERY;
import static dev.ironcore.maintenance.controller.informers.SupervisedInformer.SILENT_WATCH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.cache.WatchProbe;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link SupervisedInformer#silent} and {@link SupervisedInformer#missed}: when a watch that heard
 * nothing is probed, and when the probe shows it lost its connection.
 */
class SilentWatchTest {
  private static final Instant HEARD = Instant.parse("2026-12-07T10:00:00Z");

  @Test
  void aWatchIsProbedAfterSilentWatchAndThenEveryProbeEvery() {
    assertThat(SupervisedInformer.silent(HEARD, null, null, HEARD.plus(SILENT_WATCH), SILENT_WATCH))
        .isTrue();
    assertThat(
            SupervisedInformer.silent(
                HEARD, null, null, HEARD.plus(SILENT_WATCH).minusMillis(1), SILENT_WATCH))
        .isFalse();
    Instant probed = HEARD.plus(SILENT_WATCH);
    assertThat(
            SupervisedInformer.silent(
                HEARD, null, probed, probed.plus(PROBE_EVERY).minusMillis(1), SILENT_WATCH))
        .isFalse();
    assertThat(
            SupervisedInformer.silent(HEARD, null, probed, probed.plus(PROBE_EVERY), SILENT_WATCH))
        .isTrue();
  }

  /**
   * After an outage longer than {@code SILENT_WATCH}, fabric8 reconnects the watch itself: it is
   * judged from when it came up again, not from what it heard before the outage.
   */
  @Test
  void silenceCountsFromWhenTheInformerCameUpAgain() {
    Instant up = HEARD.plus(SILENT_WATCH.multipliedBy(2));
    assertThat(SupervisedInformer.silent(HEARD, up, null, up.plusSeconds(1), SILENT_WATCH))
        .isFalse();
    assertThat(SupervisedInformer.silent(HEARD, up, null, up.plus(SILENT_WATCH), SILENT_WATCH))
        .isTrue();
    // a watch that came up earlier than it last heard is judged by what it heard
    assertThat(
            SupervisedInformer.silent(
                HEARD, HEARD.minusSeconds(600), null, HEARD.plusSeconds(60), SILENT_WATCH))
        .isFalse();
  }

  @Test
  void theWatchMissedChangesOnlyWhenTheProbeGotSomeAndTheWatchHeardNothingMeanwhile() {
    assertThat(SupervisedInformer.missed(WatchProbe.Found.CHANGES, 7, 7)).isTrue();
    assertThat(SupervisedInformer.missed(WatchProbe.Found.EXPIRED, 7, 7))
        .as("410 Gone: another API server, or one without a watch cache, proves nothing")
        .isFalse();
    assertThat(SupervisedInformer.missed(WatchProbe.Found.NOTHING, 7, 7))
        .as("a quiet resource")
        .isFalse();
    assertThat(SupervisedInformer.missed(WatchProbe.Found.CHANGES, 7, 8))
        .as("the watch heard the same change meanwhile: alive")
        .isFalse();
    assertThat(SupervisedInformer.missed(null, 7, 7)).as("the probe got no answer").isFalse();
  }
}

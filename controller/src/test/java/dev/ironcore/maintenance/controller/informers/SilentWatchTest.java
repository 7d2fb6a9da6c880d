package dev.ironcore.maintenance.controller.informers;

import static dev.ironcore.maintenance.controller.informers.SupervisedInformer.SILENT_WATCH;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@link SupervisedInformer#silent}: when a watch that heard nothing counts as lost. */
class SilentWatchTest {
  private static final Instant HEARD = Instant.parse("2026-12-07T10:00:00Z");

  @Test
  void aWatchWithBookmarksIsLostAfterSilentWatchWithoutAWord() {
    assertThat(SupervisedInformer.silent(true, HEARD, null, HEARD.plus(SILENT_WATCH), SILENT_WATCH))
        .isTrue();
    assertThat(
            SupervisedInformer.silent(
                true, HEARD, null, HEARD.plus(SILENT_WATCH).minusMillis(1), SILENT_WATCH))
        .isFalse();
  }

  @Test
  void withoutBookmarksNoSilenceCounts() {
    // an API server without a watch cache sends none: a quiet watch there is not lost
    assertThat(
            SupervisedInformer.silent(
                false, HEARD, null, HEARD.plus(SILENT_WATCH.multipliedBy(10)), SILENT_WATCH))
        .isFalse();
  }

  /**
   * After an outage longer than {@code SILENT_WATCH}, fabric8 reconnects the watch itself: it is
   * judged from when it came up again, not from what it heard before the outage.
   */
  @Test
  void silenceCountsFromWhenTheInformerCameUpAgain() {
    Instant up = HEARD.plus(SILENT_WATCH.multipliedBy(2));
    assertThat(SupervisedInformer.silent(true, HEARD, up, up.plusSeconds(1), SILENT_WATCH))
        .isFalse();
    assertThat(SupervisedInformer.silent(true, HEARD, up, up.plus(SILENT_WATCH), SILENT_WATCH))
        .isTrue();
    // a watch that came up earlier than it last heard is judged by what it heard
    assertThat(
            SupervisedInformer.silent(
                true, HEARD, HEARD.minusSeconds(600), HEARD.plusSeconds(100), SILENT_WATCH))
        .isFalse();
  }
}

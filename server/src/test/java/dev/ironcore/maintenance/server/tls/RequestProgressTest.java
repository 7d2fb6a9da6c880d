package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When {@link ConnectionCeiling} counts a connection as making no request. */
class RequestProgressTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long DEADLINE = 5 * SECOND;
  // nanoTime may be negative and wrap: start close to the end of the range
  private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 3 * SECOND);

  @Test
  void aConnectionThatSpeaksNoHttpIsDueFiveSecondsAfterItWasFirstSeenAtTheLimit() {
    long seen = now.get();
    assertThat(ConnectionCeiling.withoutRequest(seen + 4 * SECOND, seen, null, DEADLINE)).isFalse();
    assertThat(ConnectionCeiling.withoutRequest(seen + 5 * SECOND, seen, null, DEADLINE)).isTrue();
  }

  @Test
  void aRequestInFlightKeepsItsConnectionHoweverLong() {
    RequestProgress progress = new RequestProgress(now::get);
    long seen = now.get();
    progress.begin();
    assertThat(ConnectionCeiling.withoutRequest(seen + 60 * SECOND, seen, progress, DEADLINE))
        .isFalse();
  }

  @Test
  void theDeadlineCountsFromTheLastRequestWhenItEndedAfterTheConnectionWasSeen() {
    RequestProgress progress = new RequestProgress(now::get);
    long seen = now.get();
    progress.begin();
    now.addAndGet(3 * SECOND);
    progress.end();
    assertThat(progress.inFlight()).isZero();
    assertThat(ConnectionCeiling.withoutRequest(seen + 7 * SECOND, seen, progress, DEADLINE))
        .isFalse();
    assertThat(ConnectionCeiling.withoutRequest(seen + 8 * SECOND, seen, progress, DEADLINE))
        .isTrue();
  }

  @Test
  void anOldRequestGivesNoMoreThanFiveSecondsFromWhenTheLimitWasSeen() {
    RequestProgress progress = new RequestProgress(now::get);
    progress.begin();
    progress.end();
    long seen = now.addAndGet(60 * SECOND);
    assertThat(ConnectionCeiling.withoutRequest(seen + 4 * SECOND, seen, progress, DEADLINE))
        .isFalse();
    assertThat(ConnectionCeiling.withoutRequest(seen + 5 * SECOND, seen, progress, DEADLINE))
        .isTrue();
  }
}

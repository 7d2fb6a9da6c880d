package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventHoldTest {
  private static final long MS = 1_000_000L;

  private long now = 5_000 * MS;
  private final List<String> released = new ArrayList<>();
  private final List<Scheduled> scheduled = new ArrayList<>();

  private record Scheduled(long atNanos, Runnable task) {}

  private final EventHold hold =
      new EventHold(
          (what, write) -> released.add(what),
          (delay, task) -> scheduled.add(new Scheduled(now + delay.toNanos(), task)),
          () -> now);

  /** Advances the fake clock to {@code toNanos}, running the checks due on the way, in order. */
  private void advanceTo(long toNanos) {
    while (true) {
      Scheduled next =
          scheduled.stream()
              .filter(s -> s.atNanos() <= toNanos)
              .min((a, b) -> Long.compare(a.atNanos(), b.atNanos()))
              .orElse(null);
      if (next == null) {
        break;
      }
      scheduled.remove(next);
      now = next.atNanos();
      next.task().run();
    }
    now = toNanos;
  }

  @Test
  void aSingleEventIsReleasedOneQuietPeriodLaterNotBefore() {
    long start = now;
    hold.add("PoolUnknown on default/pool-1", () -> true);
    advanceTo(start + EventHold.QUIET.toNanos() - 1);
    assertThat(released).isEmpty();
    advanceTo(start + EventHold.QUIET.toNanos());
    assertThat(released).containsExactly("PoolUnknown on default/pool-1");
    assertThat(hold.held()).isZero();
  }

  /**
   * The held Events of one subject are taken out in the order they came, for the caller to write;
   * the others are released as usual.
   */
  @Test
  void theEventsOfASubjectAreTakenOutInOrderAndNotReleasedAgain() {
    long start = now;
    hold.add("DrainBlocked on ns/a", "a#DrainBlocked", () -> true);
    hold.add("DrainBlocked on ns/b", "b#DrainBlocked", () -> true);
    hold.add("PoolUnknown on default/p", () -> true);
    hold.add("DrainBlocked on ns/a again", "a#DrainBlocked", () -> true);
    assertThat(hold.take("a#DrainBlocked"))
        .extracting(java.util.Map.Entry::getKey)
        .containsExactly("DrainBlocked on ns/a", "DrainBlocked on ns/a again");
    assertThat(hold.take("a#DrainBlocked")).isEmpty();
    advanceTo(start + EventHold.QUIET.toNanos());
    assertThat(released).containsExactly("DrainBlocked on ns/b", "PoolUnknown on default/p");
  }

  @Test
  void aBurstIsHeldUntilItIsOverAndReleasedInArrivalOrder() {
    long start = now;
    for (int i = 0; i < 5; i++) {
      advanceTo(start + i * 400 * MS);
      hold.add("e" + i, () -> true);
    }
    long last = start + 4 * 400 * MS;
    advanceTo(last + EventHold.QUIET.toNanos() - 1);
    assertThat(released).isEmpty();
    assertThat(hold.held()).isEqualTo(5);
    advanceTo(last + EventHold.QUIET.toNanos());
    assertThat(released).containsExactly("e0", "e1", "e2", "e3", "e4");
  }

  @Test
  void anEndlessBurstStillReleasesEachEventWithinTheMaximumHold() {
    long start = now;
    int i = 0;
    for (long t = start; t < start + 25_000 * MS; t += 500 * MS) {
      advanceTo(t);
      hold.add("e" + i++, () -> true);
    }
    // three releases: at 10 s and 20 s after the first of each batch, and nothing held longer
    assertThat(released).hasSize(40);
    assertThat(released.get(0)).isEqualTo("e0");
    assertThat(released.get(39)).isEqualTo("e39");
    advanceTo(start + 25_000 * MS + EventHold.QUIET.toNanos());
    assertThat(released).hasSize(50);
  }

  @Test
  void reachingTheMaximumHeldReleasesAllAtOnce() {
    for (int i = 0; i < EventHold.MAX_HELD - 1; i++) {
      hold.add("e" + i, () -> true);
    }
    assertThat(released).isEmpty();
    hold.add("last", () -> true);
    assertThat(released).hasSize(EventHold.MAX_HELD).endsWith("last");
    assertThat(hold.held()).isZero();
    // the check scheduled for the released burst finds nothing and schedules no other
    advanceTo(now + EventHold.MAX_HOLD.toNanos());
    assertThat(scheduled).isEmpty();
    assertThat(released).hasSize(EventHold.MAX_HELD);
  }

  @Test
  void releaseNowHandsOverEverythingHeldInOrderWithoutWaiting() {
    hold.add("e0", () -> true);
    hold.add("e1", () -> true);
    hold.releaseNow();
    assertThat(released).containsExactly("e0", "e1");
    assertThat(hold.held()).isZero();
    advanceTo(now + EventHold.MAX_HOLD.toNanos());
    assertThat(released).containsExactly("e0", "e1");
  }

  @Test
  void dueAtTheEarlierOfTheQuietPeriodAfterTheLastAndTheMaximumHoldAfterTheFirst() {
    long quiet = EventHold.QUIET.toNanos();
    long max = EventHold.MAX_HOLD.toNanos();
    assertThat(EventHold.nanosUntilDue(0, 0, 0)).isEqualTo(quiet);
    assertThat(EventHold.nanosUntilDue(0, 3 * quiet, 3 * quiet)).isEqualTo(quiet);
    assertThat(EventHold.nanosUntilDue(0, max - 1, max - 1)).isEqualTo(1);
    assertThat(EventHold.nanosUntilDue(0, 0, 2 * quiet)).isEqualTo(-quiet);
    assertThat(EventHold.nanosUntilDue(0, Duration.ofSeconds(60).toNanos(), max)).isZero();
  }
}

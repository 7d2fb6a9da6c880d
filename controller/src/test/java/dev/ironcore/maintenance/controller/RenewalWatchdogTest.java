package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link RenewalWatchdog} with a hand-moved clock and a lock that only counts. */
class RenewalWatchdogTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final RenewalWatchdog watchdog = new RenewalWatchdog(Duration.ofSeconds(10), nanos::get);

  private static class CountingLock implements Lock {
    int writes;

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      return null;
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      writes++;
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      writes++;
    }

    @Override
    public String identity() {
      return "me";
    }

    @Override
    public String describe() {
      return "ns/lease";
    }
  }

  private static LeaderElectionRecord heldBy(String holder) {
    ZonedDateTime now = ZonedDateTime.now();
    return new LeaderElectionRecord(holder, Duration.ofSeconds(15), now, now, 0);
  }

  /** The lock, wrapped, whose writes are answered {@code delay} after they are sent. */
  private Lock answeredAfter(Duration delay) {
    return watchdog.wrap(
        new CountingLock() {
          @Override
          public void update(KubernetesClient client, LeaderElectionRecord record) {
            advance(delay);
            super.update(client, record);
          }
        });
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void aLeaderThatRenewsInTimeIsNeverOverdue() {
    CountingLock inner = new CountingLock();
    Lock lock = watchdog.wrap(inner);
    watchdog.leading();
    for (int i = 0; i < 10; i++) {
      advance(Duration.ofSeconds(2));
      lock.update(null, heldBy("me"));
      assertThat(watchdog.overdue()).isNull();
    }
    assertThat(inner.writes).isEqualTo(10);
  }

  @Test
  void aLeaderWithoutARenewalForLongerThanTheDeadlineIsOverdue() {
    Lock lock = watchdog.wrap(new CountingLock());
    watchdog.leading();
    lock.update(null, heldBy("me"));
    advance(Duration.ofSeconds(10));
    assertThat(watchdog.overdue()).as("at the deadline").isNull();
    advance(Duration.ofMillis(1));
    assertThat(watchdog.overdue()).isEqualTo(Duration.ofMillis(10_001));
  }

  @Test
  void aFailedWriteOrAnotherHoldersRecordIsNoRenewal() {
    Lock failing =
        watchdog.wrap(
            new CountingLock() {
              @Override
              public void update(KubernetesClient client, LeaderElectionRecord record) {
                throw new IllegalStateException("no answer");
              }
            });
    Lock lock = watchdog.wrap(new CountingLock());
    watchdog.leading();
    advance(Duration.ofSeconds(6));
    try {
      failing.update(null, heldBy("me"));
    } catch (IllegalStateException expected) {
      // the elector logs it and tries again
    }
    lock.update(null, heldBy("someone-else"));
    advance(Duration.ofSeconds(5));
    assertThat(watchdog.overdue()).isEqualTo(Duration.ofSeconds(11));
  }

  @Test
  void aStandbyIsNeverOverdue() {
    advance(Duration.ofMinutes(5));
    assertThat(watchdog.overdue()).isNull();
  }

  @Test
  void aSuccessfulWriteWithoutAHolderIsTheRelease() {
    Lock lock = watchdog.wrap(new CountingLock());
    watchdog.leading();
    assertThat(watchdog.released()).isFalse();
    lock.update(null, heldBy("me"));
    assertThat(watchdog.released()).isFalse();
    lock.update(null, heldBy(null));
    assertThat(watchdog.released()).isTrue();
  }

  /**
   * What {@link LeadershipGate} reads on every write: refused before leading, within the deadline
   * allowed, past it refused at once (not at the next periodic check), and after the release.
   */
  @Test
  void notLeadingSaysWhyAWriteMustNotGoOut() {
    Lock lock = watchdog.wrap(new CountingLock());
    assertThat(watchdog.notLeading()).isEqualTo("not leading (yet)");
    // fabric8 may announce the leadership before its write (the Lease it read names this
    // candidate already): no write until the acquisition went through
    watchdog.leading();
    assertThat(watchdog.notLeading()).isEqualTo("not leading (yet)");
    lock.update(null, heldBy("me"));
    assertThat(watchdog.notLeading()).isNull();
    advance(Duration.ofSeconds(10));
    assertThat(watchdog.notLeading()).as("at the deadline").isNull();
    advance(Duration.ofMillis(1));
    assertThat(watchdog.notLeading())
        .isEqualTo(
            "the Lease was last renewed 10001 ms ago, longer than the renew deadline (10 s):"
                + " another replica may lead");
    lock.update(null, heldBy("me"));
    assertThat(watchdog.notLeading()).as("renewed").isNull();
    lock.update(null, heldBy(null));
    assertThat(watchdog.notLeading()).isEqualTo("the Lease was released (stopping)");
  }

  /**
   * Fresh eyes (session 39): a renewal answered 7-9 s after it was sent (a slow admission webhook
   * on Leases) counted from its answer, so the old leader went on writing after a successor had
   * acquired the Lease (15 s after the renewTime stamped before the request): both evicted the same
   * Machines. The renewal counts from when it was sent.
   */
  @Test
  void aSlowRenewalCountsFromWhenItWasSent() {
    Lock slow = answeredAfter(Duration.ofSeconds(8));
    watchdog.leading();
    advance(Duration.ofSeconds(2));
    slow.update(null, heldBy("me")); // sent at 2 s, answered at 10 s
    assertThat(watchdog.notLeading()).as("8 s after the send").isNull();
    advance(Duration.ofMillis(2_001));
    assertThat(watchdog.notLeading())
        .as("10 s after the send, 2 s after the answer")
        .startsWith("the Lease was last renewed 10001 ms ago");
    assertThat(watchdog.overdue()).isNotNull();
  }

  /**
   * Fresh eyes (session 39, second round): the acquisition itself, answered 9.3 s late, counted
   * from when this candidate started leading (after the answer), so it wrote 8.5 s past its
   * deadline while another replica took the expired Lease. It counts from when it was sent.
   */
  @Test
  void aSlowAcquisitionCountsFromWhenItWasSent() {
    Lock slow = answeredAfter(Duration.ofMillis(9_300));
    advance(Duration.ofSeconds(30)); // a standby for a while
    slow.update(null, heldBy("me")); // the acquisition: sent at 30 s, answered at 39.3 s
    watchdog.leading();
    assertThat(watchdog.notLeading()).isNull();
    advance(Duration.ofMillis(701));
    assertThat(watchdog.notLeading()).startsWith("the Lease was last renewed 10001 ms ago");
  }
}

package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LeaseReleaseTest {
  /** An elector whose cancellation takes until {@code done} opens, as fabric8's release's PUT. */
  private static CompletableFuture<Object> elector(AtomicInteger releases, CountDownLatch done) {
    CompletableFuture<Object> elector = new CompletableFuture<>();
    elector.whenComplete(
        (r, e) -> {
          releases.incrementAndGet();
          try {
            done.await();
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
        });
    return elector;
  }

  @Test
  void twoCallersShareOneReleaseAndBothWaitForIt() throws Exception {
    AtomicInteger releases = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    LeaseRelease release = new LeaseRelease(elector(releases, done));
    var pool = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> first = pool.submit(() -> release.releaseAndWait(Duration.ofSeconds(30)));
      Future<Boolean> second = pool.submit(() -> release.releaseAndWait(Duration.ofSeconds(30)));
      Thread.sleep(300);
      assertThat(first).as("waits for the release").isNotDone();
      assertThat(second).as("waits for the same release, not none").isNotDone();

      done.countDown();

      assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(releases).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aReleaseThatDoesNotFinishInTimeIsSaidSoAndNotStartedAgain() throws Exception {
    AtomicInteger releases = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    LeaseRelease release = new LeaseRelease(elector(releases, done));

    assertThat(release.releaseAndWait(Duration.ofMillis(100))).isFalse();
    assertThat(release.releaseAndWait(Duration.ofMillis(100))).isFalse();
    done.countDown();
    assertThat(release.releaseAndWait(Duration.ofSeconds(10))).isTrue();
    assertThat(releases).hasValue(1);
  }
}

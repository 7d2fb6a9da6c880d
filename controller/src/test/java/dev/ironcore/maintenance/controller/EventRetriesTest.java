package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class EventRetriesTest {
  private final EventRetries retries = new EventRetries(Duration.ofMillis(5));

  @Test
  void retriesUntilTheWriteSucceeds() {
    AtomicInteger attempts = new AtomicInteger(1); // the failed first attempt
    retries.retry("Evicted on ns/vm-1", () -> attempts.incrementAndGet() >= 4);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> attempts.get() == 4 && retries.pending() == 0);
  }

  @Test
  void givesUpAfterTwelveAttemptsInAll() throws Exception {
    AtomicInteger attempts = new AtomicInteger(1);
    retries.retry(
        "Evicted on ns/vm-2",
        () -> {
          attempts.incrementAndGet();
          return false;
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> retries.pending() == 0 && attempts.get() > 1);
    Thread.sleep(100);
    assertThat(attempts.get()).isEqualTo(EventRetries.MAX_ATTEMPTS);
  }

  @Test
  void firstAttemptRunsOnTheRecorderThreadAndTheCallerDoesNotWait() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<String> thread = new AtomicReference<>();
    retries.first(
        "PoolUnknown on default/pool-1",
        () -> {
          thread.set(Thread.currentThread().getName());
          return waitFor(release);
        });
    // the caller is back while the write still waits
    assertThat(release.getCount()).isOne();
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> retries.pending() == 0);
    assertThat(thread.get()).isEqualTo("event-retries");
  }

  @Test
  void aFailedFirstAttemptIsRetried() {
    AtomicInteger attempts = new AtomicInteger();
    retries.first("PoolUnknown on default/pool-2", () -> attempts.incrementAndGet() >= 3);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> attempts.get() == 3 && retries.pending() == 0);
  }

  @Test
  void withTheQueueFullTheCallerMakesTheAttemptItself() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < EventRetries.MAX_PENDING; i++) {
      retries.first("queued " + i, () -> waitFor(release));
    }
    AtomicReference<String> thread = new AtomicReference<>();
    retries.first(
        "one too many",
        () -> {
          thread.set(Thread.currentThread().getName());
          return true;
        });
    assertThat(thread.get()).isEqualTo(Thread.currentThread().getName());
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> retries.pending() == 0);
  }

  @Test
  void closeMakesTheQueuedFirstAttemptsDropsWaitingRetriesAndRefusesNewOnes() {
    EventRetries slow = new EventRetries(Duration.ofSeconds(60));
    AtomicInteger retried = new AtomicInteger();
    slow.retry("Evicted on ns/vm-3", () -> retried.incrementAndGet() > 0);
    AtomicInteger written = new AtomicInteger();
    for (int i = 0; i < 5; i++) {
      slow.first("PoolUnknown on default/pool-" + i, () -> written.incrementAndGet() > 0);
    }
    slow.close(Duration.ofSeconds(10));
    assertThat(written.get()).isEqualTo(5);
    assertThat(retried.get()).as("the retry due in 60 s is dropped").isZero();
    slow.first("PoolUnknown on default/late", () -> written.incrementAndGet() > 0);
    slow.retry("Evicted on ns/late", () -> retried.incrementAndGet() > 0);
    slow.after(Duration.ZERO, retried::incrementAndGet);
    assertThat(written.get()).isEqualTo(5);
    assertThat(retried.get()).isZero();
    assertThat(slow.pending()).isZero();
  }

  private static boolean waitFor(CountDownLatch latch) {
    try {
      return latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

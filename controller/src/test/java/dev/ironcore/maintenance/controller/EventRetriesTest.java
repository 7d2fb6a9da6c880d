package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
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
}

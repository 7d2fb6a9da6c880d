package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Event names chosen by the recorder stay valid DNS subdomains for any object name. */
class EventNameTest {
  private static final String DNS_SUBDOMAIN =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  private static final java.time.Instant AT =
      java.time.Instant.parse("2026-12-07T04:30:23.123456Z");

  @Test
  void theObjectsNameADotAndTheTimeInNanosecondsAsSixteenHexDigits() {
    String name = EventRecorder.eventName("node-1", AT.plusSeconds(3600));
    assertThat(name).matches("node-1\\.[0-9a-f]{16}");
    assertThat(Long.parseLong(name.substring("node-1.".length()), 16))
        .as("client-go's %x of UnixNano")
        .isEqualTo(AT.plusSeconds(3600).getEpochSecond() * 1_000_000_000L + 123_456_000L);
  }

  /** kubectl get events lists by name: an object's Events in the order they were recorded. */
  @Test
  void namesSortAsTheirTimes() {
    java.time.Instant later = AT.plusSeconds(7200);
    String first = EventRecorder.eventName("node-c", later);
    String next = EventRecorder.eventName("node-c", later.plusNanos(1_000));
    String earlier = EventRecorder.eventName("node-c", later.minusMillis(300));
    assertThat(java.util.List.of(next, first, earlier).stream().sorted().toList())
        .containsExactly(earlier, first, next);
  }

  @Test
  void aLongNameIsCutWithinTheLimitWithoutEndingItsLabelBadly() {
    String longName = "a".repeat(235) + "-b" + "c".repeat(16);
    String name = EventRecorder.eventName(longName, AT);
    assertThat(name).hasSizeLessThanOrEqualTo(253).matches(DNS_SUBDOMAIN);
    assertThat(name).startsWith("a".repeat(235) + ".");
    assertThat(EventRecorder.eventName("x".repeat(253), AT)).hasSize(253).matches(DNS_SUBDOMAIN);
  }
}

package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Event names chosen by the recorder stay valid DNS subdomains for any object name. */
class EventNameTest {
  private static final String DNS_SUBDOMAIN =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  @Test
  void theObjectsNameADotAndSixteenHexDigits() {
    assertThat(EventRecorder.eventName("node-1")).matches("node-1\\.[0-9a-f]{16}");
    assertThat(EventRecorder.eventName("node-1")).isNotEqualTo(EventRecorder.eventName("node-1"));
  }

  @Test
  void aLongNameIsCutWithinTheLimitWithoutEndingItsLabelBadly() {
    String longName = "a".repeat(235) + "-b" + "c".repeat(16);
    String name = EventRecorder.eventName(longName);
    assertThat(name).hasSizeLessThanOrEqualTo(253).matches(DNS_SUBDOMAIN);
    assertThat(name).startsWith("a".repeat(235) + ".");
    assertThat(EventRecorder.eventName("x".repeat(253))).hasSize(253).matches(DNS_SUBDOMAIN);
  }
}

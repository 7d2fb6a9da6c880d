package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WatchProbeTest {
  private static final String LEASE =
      "{\"type\":\"%s\",\"object\":{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
          + "\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"12\"}}}";

  @Test
  void anEmptyAnswerMissedNothing() {
    assertThat(WatchProbe.read(200, "")).isEqualTo(WatchProbe.Found.NOTHING);
    assertThat(WatchProbe.read(200, null)).isEqualTo(WatchProbe.Found.NOTHING);
    assertThat(WatchProbe.read(200, LEASE.formatted("BOOKMARK") + "\n"))
        .as("a bookmark is no change")
        .isEqualTo(WatchProbe.Found.NOTHING);
  }

  @Test
  void anyChangeWasMissed() {
    for (String type : new String[] {"ADDED", "MODIFIED", "DELETED"}) {
      assertThat(WatchProbe.read(200, LEASE.formatted(type) + "\n" + LEASE.formatted("MODIFIED")))
          .as(type)
          .isEqualTo(WatchProbe.Found.CHANGES);
    }
  }

  @Test
  void goneIsExpiredEitherAsStatusOrAsErrorEvent() {
    assertThat(WatchProbe.read(410, "")).isEqualTo(WatchProbe.Found.EXPIRED);
    assertThat(
            WatchProbe.read(
                200,
                "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"message\":\"too old resource version: 5 (90)\","
                    + "\"reason\":\"Expired\",\"code\":410}}\n"))
        .isEqualTo(WatchProbe.Found.EXPIRED);
  }

  @Test
  void anythingElseSaysNothing() {
    assertThatThrownBy(() -> WatchProbe.read(500, "")).hasMessageContaining("answered 500");
    assertThatThrownBy(
            () ->
                WatchProbe.read(
                    200, "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":500}}"))
        .hasMessageContaining("ERROR event");
    assertThatThrownBy(() -> WatchProbe.read(200, "<html>")).hasMessageContaining("not a watch");
  }
}

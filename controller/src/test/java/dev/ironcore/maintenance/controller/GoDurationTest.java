package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GoDurationTest {
  @Test
  void parsesGoStyleDurations() {
    assertThat(GoDuration.parse("50s")).isEqualTo(Duration.ofSeconds(50));
    assertThat(GoDuration.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(GoDuration.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(GoDuration.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(GoDuration.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(GoDuration.parse("0")).isEqualTo(Duration.ZERO);
  }

  @Test
  void rejectsGarbageWithTheExpectedForm() {
    assertThatThrownBy(() -> GoDuration.parse("50")).hasMessageContaining("expected e.g. 50s");
    assertThatThrownBy(() -> GoDuration.parse("5 s")).hasMessageContaining("invalid duration");
    assertThatThrownBy(() -> GoDuration.parse("")).hasMessageContaining("invalid duration");
  }
}

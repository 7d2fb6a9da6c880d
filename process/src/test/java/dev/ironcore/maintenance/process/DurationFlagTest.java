package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationFlagTest {
  @Test
  void parsesGoStyleDurationsDaysAndIso() {
    assertThat(DurationFlag.parse("50s")).isEqualTo(Duration.ofSeconds(50));
    assertThat(DurationFlag.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(DurationFlag.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationFlag.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(DurationFlag.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(DurationFlag.parse("30d")).isEqualTo(Duration.ofDays(30));
    assertThat(DurationFlag.parse("365D")).isEqualTo(Duration.ofDays(365));
    assertThat(DurationFlag.parse("PT1H")).isEqualTo(Duration.ofHours(1));
    assertThat(DurationFlag.parse("0")).isEqualTo(Duration.ZERO);
    assertThat(DurationFlag.parse("0s")).isEqualTo(Duration.ZERO);
  }

  @Test
  void rejectsGarbageBareNumbersAndNegativesWithTheExpectedForm() {
    assertThatThrownBy(() -> DurationFlag.parse("50"))
        .hasMessageContaining("expected a number with a unit (ms, s, m, h or d), e.g. 50s");
    assertThatThrownBy(() -> DurationFlag.parse("1ns"))
        .hasMessage(
            "invalid duration \"1ns\": expected a number with a unit (ms, s, m, h or d), e.g. 50s,"
                + " 1m30s, 500ms or 30d");
    assertThatThrownBy(() -> DurationFlag.parse("5 s")).hasMessageContaining("invalid duration");
    assertThatThrownBy(() -> DurationFlag.parse("")).hasMessageContaining("invalid duration");
    assertThatThrownBy(() -> DurationFlag.parse("-5s"))
        .hasMessage("invalid duration \"-5s\": must not be negative");
    assertThatThrownBy(() -> DurationFlag.parse("PT-1S")).hasMessageContaining("invalid duration");
    // Go's durations end at 2562047h47m16.854775807s; longer ones used to saturate silently
    assertThatThrownBy(() -> DurationFlag.parse("9999999999999999999d"))
        .hasMessage(
            "invalid duration \"9999999999999999999d\": too large, at most 2562047h (about 292"
                + " years)");
    assertThatThrownBy(() -> DurationFlag.parse("2562048h")).hasMessageContaining("too large");
    assertThat(DurationFlag.parse("2562047h")).isEqualTo(java.time.Duration.ofHours(2562047));
  }

  @Test
  void formatsAsGoDoes() {
    assertThat(DurationFlag.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(DurationFlag.format(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(DurationFlag.format(Duration.ofSeconds(50))).isEqualTo("50s");
    assertThat(DurationFlag.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(DurationFlag.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(DurationFlag.format(Duration.ofMinutes(30))).isEqualTo("30m0s");
    assertThat(DurationFlag.format(Duration.ofHours(2))).isEqualTo("2h0m0s");
  }
}

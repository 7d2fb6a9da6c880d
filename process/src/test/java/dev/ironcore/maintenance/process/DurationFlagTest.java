package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
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
  void aPositiveDurationUnder1msIsRefusedNotRoundedTo0() {
    // 0 turns --drain-timeout off: 0.4ms used to round to it silently
    for (String tiny : List.of("0.4ms", "0.0001ms", "0.5ms", "0.999ms", "0.0004s", "PT0.0004S")) {
      assertThatThrownBy(() -> DurationFlag.parse(tiny))
          .as(tiny)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "invalid duration \""
                  + tiny
                  + "\": less than 1ms (durations here are whole milliseconds)");
    }
    // a zero written with a fraction is still 0
    assertThat(DurationFlag.parse("0.0ms")).isZero();
    assertThat(DurationFlag.parse("PT0S")).isZero();
  }

  @Test
  void longerDurationsAreRoundedToTheNearestMillisecondIsoOnesToo() {
    assertThat(DurationFlag.parse("1ms")).isEqualTo(Duration.ofMillis(1));
    assertThat(DurationFlag.parse("1.4ms")).isEqualTo(Duration.ofMillis(1));
    assertThat(DurationFlag.parse("1.5ms")).isEqualTo(Duration.ofMillis(2));
    assertThat(DurationFlag.parse("1.0004s")).isEqualTo(Duration.ofMillis(1000));
    assertThat(DurationFlag.parse("PT1.0004S")).isEqualTo(Duration.ofMillis(1000));
    assertThat(DurationFlag.parse("PT0.0015S")).isEqualTo(Duration.ofMillis(2));
    // ISO-8601 is held to Go's limit as well
    assertThatThrownBy(() -> DurationFlag.parse("PT2562048H")).hasMessageContaining("too large");
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

  /**
   * A certificate's time left and its warning window (review, session 51: a 12h window was logged
   * as "0 days", a CA 40 minutes from its end as "in 0 h").
   */
  @Test
  void daysFromTwoDaysOnOtherwiseWholeSecondsAsTheFlagsAre() {
    assertThat(DurationFlag.days(Duration.ofHours(719).plusMinutes(59))).isEqualTo("29 days");
    assertThat(DurationFlag.days(Duration.ofDays(2))).isEqualTo("2 days");
    assertThat(DurationFlag.days(Duration.ofHours(47).plusMinutes(59))).isEqualTo("47h59m0s");
    assertThat(DurationFlag.days(Duration.ofHours(12))).isEqualTo("12h0m0s");
    assertThat(DurationFlag.days(Duration.ofMinutes(12).plusSeconds(5))).isEqualTo("12m5s");
    assertThat(DurationFlag.days(Duration.ofSeconds(58).plusMillis(700))).isEqualTo("58s");
    assertThat(DurationFlag.days(Duration.ofSeconds(-3))).isEqualTo("0s");
  }
}

package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** VALIDITY=20s is "valid 20s", not "valid 0 days". */
class LifetimeTest {
  @Test
  void wholeDaysAsDaysOtherwiseTheUnitsThatAreNotZero() {
    assertThat(Lifetime.human(Duration.ofDays(365))).isEqualTo("365 days");
    assertThat(Lifetime.human(Duration.ofDays(1))).isEqualTo("1 day");
    assertThat(Lifetime.human(Duration.ofSeconds(20))).isEqualTo("20s");
    assertThat(Lifetime.human(Duration.ofMinutes(90))).isEqualTo("1h30m");
    assertThat(Lifetime.human(Duration.ofHours(36))).isEqualTo("1d12h");
    assertThat(Lifetime.human(Duration.ofMillis(500))).isEqualTo("500ms");
  }

  @Test
  void flagValueRoundsDownToTheLargestUnit() {
    assertThat(Lifetime.flagValue(Duration.ofDays(364).plusHours(23))).isEqualTo("364d");
    assertThat(Lifetime.flagValue(Duration.ofMinutes(119))).isEqualTo("1h");
    assertThat(Lifetime.flagValue(Duration.ofSeconds(59))).isEqualTo("59s");
  }
}

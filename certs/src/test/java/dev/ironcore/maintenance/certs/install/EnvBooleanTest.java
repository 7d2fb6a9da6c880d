package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** DRY_RUN and its kind: true, false or nothing; anything else is refused, not read as false. */
class EnvBooleanTest {
  @Test
  void unsetEmptyAndFalseAreFalse() {
    assertThat(EnvBoolean.parse("DRY_RUN", null)).isFalse();
    assertThat(EnvBoolean.parse("DRY_RUN", "")).isFalse();
    assertThat(EnvBoolean.parse("DRY_RUN", "false")).isFalse();
    assertThat(EnvBoolean.parse("DRY_RUN", "False")).isFalse();
  }

  @Test
  void trueIsTrue() {
    assertThat(EnvBoolean.parse("DRY_RUN", "true")).isTrue();
    assertThat(EnvBoolean.parse("DRY_RUN", "TRUE")).isTrue();
  }

  /**
   * The message names what is accepted and nothing else: it read "DRY_RUN='yes' is not a yes/no
   * value: use true, or false", as if yes were one.
   */
  @Test
  void anythingElseIsRefusedNamingTheAllowedValues() {
    for (String v : new String[] {"yes", "1", "0", "no", " true", "on"}) {
      assertThatThrownBy(() -> EnvBoolean.parse("DRY_RUN", v))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("DRY_RUN='" + v + "': use true or false (or leave DRY_RUN empty)");
    }
  }
}

package dev.ironcore.maintenance.devtools.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectedLabelsTest {
  @Test
  void labelsSatisfyEqualityExistenceAndSetSelectors() {
    assertThat(SelectedLabels.satisfying("")).isEmpty();
    assertThat(SelectedLabels.satisfying("role=ironcore,zone in (a,b),managed,!skip,tier!=db"))
        .isEqualTo(Map.of("role", "ironcore", "zone", "a", "managed", "demo"));
    assertThat(SelectedLabels.satisfying("gen>3")).isEqualTo(Map.of("gen", "4"));
  }

  @Test
  void contradictoryOrInvalidSelectorsAreRejected() {
    assertThatThrownBy(() -> SelectedLabels.satisfying("a=x,a=y"))
        .hasMessageContaining("no labels satisfy");
    assertThatThrownBy(() -> SelectedLabels.satisfying("a==b==c"))
        .hasMessageContaining("invalid label selector");
  }
}

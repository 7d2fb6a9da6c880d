package dev.ironcore.maintenance.api.compute;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
  private static final Instant T1 = Instant.parse("2026-11-29T08:00:00.123Z");
  private static final Instant T2 = Instant.parse("2026-11-29T08:05:00Z");

  @Test
  void aNewConditionIsAppendedWithBothTimes() {
    Condition other = new Condition();
    other.setType("Other");
    List<Condition> result = Conditions.set(List.of(other), "Ready", "True", "Up", "ok", 3L, T1);
    assertThat(result).hasSize(2);
    assertThat(result.get(0)).isSameAs(other);
    assertThat(result.get(1).getLastUpdateTime()).isEqualTo("2026-11-29T08:00:00Z");
    assertThat(result.get(1).getLastTransitionTime()).isEqualTo("2026-11-29T08:00:00Z");
    assertThat(result.get(1).getObservedGeneration()).isEqualTo(3L);
  }

  @Test
  void sameStatusRefreshesOnlyLastUpdateTime() {
    List<Condition> first = Conditions.set(null, "Ready", "True", "Up", "ok", 1L, T1);
    List<Condition> second = Conditions.set(first, "Ready", "True", "Up", "still ok", 2L, T2);
    assertThat(second).hasSize(1);
    assertThat(second.get(0).getLastUpdateTime()).isEqualTo("2026-11-29T08:05:00Z");
    assertThat(second.get(0).getLastTransitionTime()).isEqualTo("2026-11-29T08:00:00Z");
    assertThat(second.get(0).getMessage()).isEqualTo("still ok");
  }

  @Test
  void statusChangeMovesLastTransitionTime() {
    List<Condition> first = Conditions.set(null, "Ready", "True", "Up", "ok", 1L, T1);
    List<Condition> second =
        Conditions.set(first, "Ready", "Unknown", "MachinePoolStatusUnknown", "gone", 1L, T2);
    assertThat(second.get(0).getLastTransitionTime()).isEqualTo("2026-11-29T08:05:00Z");
    assertThat(first.get(0).getStatus()).as("input untouched").isEqualTo("True");
  }
}

package dev.ironcore.maintenance.api.compute;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaintTest {
  private static Taint taint(String key, String value, String effect, String timeAdded) {
    Taint t = new Taint(key, value, effect);
    t.setTimeAdded(timeAdded);
    return t;
  }

  @Test
  void nullAndEmptyAreTheSameAndEqualFieldsMakeEqualLists() {
    assertThat(Taint.sameTaints(null, List.of())).isTrue();
    assertThat(Taint.sameTaints(List.of(), null)).isTrue();
    assertThat(
            Taint.sameTaints(
                List.of(taint("a", "1", "NoExecute", "2026-12-01T00:00:00Z")),
                List.of(taint("a", "1", "NoExecute", "2026-12-01T00:00:00Z"))))
        .isTrue();
  }

  @Test
  void anyDifferenceInKeyValueEffectTimeAddedOrOrderCounts() {
    List<Taint> base =
        List.of(taint("a", "1", "NoExecute", null), taint("b", null, "NoSchedule", null));
    assertThat(Taint.sameTaints(base, List.of(base.get(0)))).isFalse();
    assertThat(Taint.sameTaints(base, List.of(base.get(1), base.get(0)))).isFalse();
    assertThat(Taint.sameTaints(base, List.of(taint("x", "1", "NoExecute", null), base.get(1))))
        .isFalse();
    assertThat(Taint.sameTaints(base, List.of(taint("a", "2", "NoExecute", null), base.get(1))))
        .isFalse();
    assertThat(Taint.sameTaints(base, List.of(taint("a", "1", "NoSchedule", null), base.get(1))))
        .isFalse();
    assertThat(
            Taint.sameTaints(
                base, List.of(taint("a", "1", "NoExecute", "2026-12-01T00:00:00Z"), base.get(1))))
        .isFalse();
    List<Taint> withNull = new ArrayList<>();
    withNull.add(null);
    assertThat(Taint.sameTaints(withNull, List.of(base.get(0)))).isFalse();
    assertThat(Taint.sameTaints(withNull, withNull)).isTrue();
  }
}

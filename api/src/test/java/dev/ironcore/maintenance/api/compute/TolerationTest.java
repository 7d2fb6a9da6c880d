package dev.ironcore.maintenance.api.compute;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TolerationTest {
  private static final Taint MAINTENANCE = new Taint("maintenance.ironcore.dev", null, "NoExecute");
  private static final Taint GPU = new Taint("gpu", "a100", "NoExecute");

  /**
   * Kubernetes' getMinTolerationTime: a value of 0 or less counts as 0, int64's least value too.
   */
  @Test
  void secondsOfZeroOrLessCountAsZeroNeverAsForever() {
    Toleration least = new Toleration("gpu", "Exists", null, "NoExecute");
    least.setTolerationSeconds(Long.MIN_VALUE);
    Toleration later = new Toleration(null, "Exists", null, null);
    later.setTolerationSeconds(30L);
    assertThat(Tolerations.secondsTolerated(GPU, List.of(least, later))).isZero();
    Toleration negative = new Toleration("gpu", "Exists", null, null);
    negative.setTolerationSeconds(-5L);
    assertThat(Tolerations.secondsTolerated(GPU, List.of(negative))).isZero();
  }

  /**
   * Kubernetes' taint manager: the first matching toleration per taint decides
   * (GetMatchingTolerations breaks at the first match), whatever follows it.
   */
  @Test
  void theFirstMatchingTolerationDecidesAsInKubernetes() {
    Toleration twenty = new Toleration("gpu", "Exists", null, "NoExecute");
    twenty.setTolerationSeconds(20L);
    Toleration forever = new Toleration("gpu", "Exists", null, "NoExecute");
    Toleration thirty = new Toleration(null, "Exists", null, null);
    thirty.setTolerationSeconds(30L);
    Toleration other = new Toleration("other", "Exists", null, null);
    assertThat(Tolerations.secondsTolerated(GPU, List.of(twenty, forever))).isEqualTo(20L);
    assertThat(Tolerations.toleratedForever(GPU, List.of(twenty, forever))).isFalse();
    assertThat(Tolerations.secondsTolerated(GPU, List.of(forever, twenty)))
        .isEqualTo(Tolerations.FOREVER);
    assertThat(Tolerations.toleratedForever(GPU, List.of(forever, twenty))).isTrue();
    assertThat(Tolerations.secondsTolerated(GPU, List.of(thirty, twenty))).isEqualTo(30L);
    assertThat(Tolerations.secondsTolerated(GPU, List.of(other, twenty))).isEqualTo(20L);
    assertThat(Tolerations.secondsTolerated(GPU, List.of(other))).isNull();
    assertThat(Tolerations.toleratedForever(GPU, List.of(other))).isFalse();
  }

  @Test
  void existsWithMatchingKeyToleratesAnyValue() {
    assertThat(new Toleration("gpu", "Exists", null, null).tolerates(GPU)).isTrue();
  }

  @Test
  void emptyKeyWithExistsToleratesEveryTaint() {
    Toleration all = new Toleration(null, "Exists", null, null);
    assertThat(all.tolerates(GPU)).isTrue();
    assertThat(all.tolerates(MAINTENANCE)).isTrue();
  }

  @Test
  void equalNeedsEqualValuesAndEmptyOperatorMeansEqual() {
    assertThat(new Toleration("gpu", "Equal", "a100", null).tolerates(GPU)).isTrue();
    assertThat(new Toleration("gpu", null, "a100", null).tolerates(GPU)).isTrue();
    assertThat(new Toleration("gpu", "", "h100", null).tolerates(GPU)).isFalse();
  }

  @Test
  void nullAndEmptyValuesAreEqual() {
    assertThat(
            new Toleration("maintenance.ironcore.dev", "Equal", "", "NoExecute")
                .tolerates(MAINTENANCE))
        .isTrue();
  }

  @Test
  void effectMustBeEmptyOrEqual() {
    assertThat(new Toleration("gpu", "Exists", null, "NoExecute").tolerates(GPU)).isTrue();
    assertThat(new Toleration("gpu", "Exists", null, "NoSchedule").tolerates(GPU)).isFalse();
  }

  @Test
  void differentKeyDoesNotMatch() {
    assertThat(new Toleration("other", "Exists", null, null).tolerates(GPU)).isFalse();
  }

  @Test
  void unknownOperatorNeverMatches() {
    assertThat(new Toleration("gpu", "Gt", "a100", null).tolerates(GPU)).isFalse();
    assertThat(new Toleration(null, "exists", null, null).tolerates(GPU)).isFalse();
  }

  @Test
  void onlyUntoleratedNoExecuteTaintsAreReported() {
    Taint noSchedule = new Taint("maintenance.ironcore.dev", null, "NoSchedule");
    List<Taint> taints = List.of(noSchedule, MAINTENANCE, GPU);
    List<Toleration> tolerations =
        List.of(new Toleration("maintenance.ironcore.dev", "Exists", null, null));
    assertThat(Tolerations.untoleratedNoExecute(taints, tolerations)).containsExactly(GPU);
    assertThat(Tolerations.untoleratedNoExecute(taints, null)).containsExactly(MAINTENANCE, GPU);
    assertThat(Tolerations.untoleratedNoExecute(null, null)).isEmpty();
    assertThat(Tolerations.untoleratedNoExecute(List.of(noSchedule), null)).isEmpty();
  }
}

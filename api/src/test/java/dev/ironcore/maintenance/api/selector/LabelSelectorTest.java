package dev.ironcore.maintenance.api.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {

  @Test
  void emptySelectsEverything() {
    assertThat(LabelSelector.parse("").test(Map.of())).isTrue();
    assertThat(LabelSelector.parse("  ").isEmpty()).isTrue();
    assertThat(LabelSelector.parse(null).test(Map.of("a", "b"))).isTrue();
  }

  @Test
  void equalityAndInequality() {
    LabelSelector s = LabelSelector.parse("a=b,c!=d");
    assertThat(s.test(Map.of("a", "b"))).isTrue();
    assertThat(s.test(Map.of("a", "b", "c", "x"))).isTrue();
    assertThat(s.test(Map.of("a", "b", "c", "d"))).isFalse();
    assertThat(s.test(Map.of("a", "x"))).isFalse();
    assertThat(LabelSelector.parse("a==b").test(Map.of("a", "b"))).isTrue();
    assertThat(LabelSelector.parse("a=").test(Map.of("a", ""))).isTrue();
    assertThat(LabelSelector.parse("a=").test(Map.of())).isFalse();
  }

  @Test
  void existenceAndSets() {
    LabelSelector s = LabelSelector.parse("e, !f , g in (x, y),h notin (z)");
    assertThat(s.requirements()).hasSize(4);
    assertThat(s.test(Map.of("e", "", "g", "y"))).isTrue();
    assertThat(s.test(Map.of("e", "", "g", "y", "h", "z"))).isFalse();
    assertThat(s.test(Map.of("e", "", "g", "q"))).isFalse();
    assertThat(s.test(Map.of("e", "", "g", "x", "f", "1"))).isFalse();
    assertThat(s.test(Map.of("g", "x"))).isFalse();
  }

  @Test
  void anEmptyValueSetIsTheEmptyValueAsInLabelsParse() {
    // apimachinery's labels.Parse (and so kubectl -l and the API server) reads "()" as {""}
    LabelSelector in = LabelSelector.parse("a in ()");
    assertThat(in.requirements())
        .containsExactly(new Requirement("a", Requirement.Operator.IN, List.of("")));
    assertThat(in.test(Map.of("a", ""))).isTrue();
    assertThat(in.test(Map.of("a", "x"))).isFalse();
    assertThat(in.test(Map.of())).isFalse();
    assertThat(in.toString()).isEqualTo("a in ()");

    LabelSelector notIn = LabelSelector.parse("a notin ( ),b");
    assertThat(notIn.requirements())
        .containsExactly(
            new Requirement("a", Requirement.Operator.NOT_IN, List.of("")),
            new Requirement("b", Requirement.Operator.EXISTS, List.of()));
    assertThat(notIn.test(Map.of("b", ""))).isTrue();
    assertThat(notIn.test(Map.of("a", "x", "b", ""))).isTrue();
    assertThat(notIn.test(Map.of("a", "", "b", ""))).isFalse();
    assertThat(notIn.test(Map.of("a", "x"))).isFalse();
    assertThat(notIn.toString()).isEqualTo("a notin (),b");
    // an empty value among others, as in labels.Parse
    assertThat(LabelSelector.parse("a in (,x)").test(Map.of("a", ""))).isTrue();
    assertThat(LabelSelector.parse("a in (x,)").test(Map.of("a", "x"))).isTrue();
  }

  @Test
  void numericComparisons() {
    assertThat(LabelSelector.parse("n>5").test(Map.of("n", "6"))).isTrue();
    assertThat(LabelSelector.parse("n>5").test(Map.of("n", "5"))).isFalse();
    assertThat(LabelSelector.parse("n<5").test(Map.of("n", "x"))).isFalse();
    assertThat(LabelSelector.parse("n<5").test(Map.of())).isFalse();
  }

  @Test
  void prefixedKeysAndRoundTrip() {
    LabelSelector s =
        LabelSelector.parse(
            "cluster.x-k8s.io/cluster-name=prod,!node-role.kubernetes.io/control-plane");
    assertThat(s.test(Map.of("cluster.x-k8s.io/cluster-name", "prod"))).isTrue();
    assertThat(s.toString())
        .isEqualTo("cluster.x-k8s.io/cluster-name=prod,!node-role.kubernetes.io/control-plane");
    assertThat(LabelSelector.parse("g in (x,y)").toString()).isEqualTo("g in (x,y)");
  }

  @Test
  void reportsSyntaxErrorsWithPosition() {
    assertThatThrownBy(() -> LabelSelector.parse("a=b,"))
        .hasMessageContaining("position 5")
        .hasMessageContaining("label key");
    assertThatThrownBy(() -> LabelSelector.parse("a in x")).hasMessageContaining("'('");
    assertThatThrownBy(() -> LabelSelector.parse("a b")).hasMessageContaining("operator");
    assertThatThrownBy(() -> LabelSelector.parse("-a=b")).hasMessageContaining("invalid label key");
    assertThatThrownBy(() -> LabelSelector.parse("a=b c")).hasMessageContaining("position 5");
    assertThatThrownBy(() -> LabelSelector.parse("a>x")).hasMessageContaining("integer");
    assertThatThrownBy(() -> LabelSelector.parse("a=" + "v".repeat(64)))
        .hasMessageContaining("invalid label value");
    assertThatThrownBy(() -> LabelSelector.parse("a in (x")).hasMessageContaining("',' or ')'");
  }
}

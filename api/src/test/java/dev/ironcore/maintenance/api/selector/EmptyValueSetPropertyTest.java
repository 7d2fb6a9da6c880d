package dev.ironcore.maintenance.api.selector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * apimachinery's {@code labels.Parse} reads an empty value set {@code ()} as the set holding the
 * empty value, so for any labels {@code k in ()} selects what {@code k=} selects and {@code k notin
 * ()} what {@code k!=} selects, alone or with other requirements, and the selector prints back as
 * it was written.
 */
class EmptyValueSetPropertyTest {

  @Provide
  Arbitrary<Map<String, String>> labels() {
    return Arbitraries.maps(
            Arbitraries.of("a", "b", "example.com/c"), Arbitraries.of("", "x", "y", "0"))
        .ofMaxSize(3);
  }

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.of("a", "b", "example.com/c");
  }

  @Provide
  Arbitrary<String> others() {
    return Arbitraries.of("", "b", "!b", "b=x", "b in (x,y)", "example.com/c notin (0)");
  }

  @Property
  void inEmptyIsEqualsEmptyAndNotinEmptyIsNotEqualsEmpty(
      @ForAll("labels") Map<String, String> labels,
      @ForAll("keys") String key,
      @ForAll("others") String other) {
    String rest = other.isEmpty() ? "" : "," + other;
    LabelSelector in = LabelSelector.parse(key + " in ()" + rest);
    LabelSelector notIn = LabelSelector.parse(key + " notin ()" + rest);
    assertThat(in.test(labels))
        .isEqualTo(LabelSelector.parse(key + "=" + rest).test(labels))
        .isEqualTo(labels.containsKey(key) && labels.get(key).isEmpty() && rest(other, labels));
    assertThat(notIn.test(labels))
        .isEqualTo(LabelSelector.parse(key + "!=" + rest).test(labels))
        .isEqualTo(!"".equals(labels.get(key)) && rest(other, labels));
    assertThat(LabelSelector.parse(in.toString()).requirements()).isEqualTo(in.requirements());
    assertThat(LabelSelector.parse(notIn.toString()).requirements())
        .isEqualTo(notIn.requirements());
  }

  private static boolean rest(String other, Map<String, String> labels) {
    return LabelSelector.parse(other).test(labels);
  }
}

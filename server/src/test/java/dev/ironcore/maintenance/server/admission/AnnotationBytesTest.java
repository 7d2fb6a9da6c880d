package dev.ironcore.maintenance.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The UTF-8 length counted without encoding is the encoder's, for any text, with a lone surrogate
 * read as U+FFFD as kube-apiserver's Go decoder reads it.
 */
class AnnotationBytesTest {
  @Property
  void countsAsTheEncoderEncodes(@ForAll String s) {
    assertThat(AnnotationBytes.utf8(s)).isEqualTo(goBytes(s));
  }

  /** The bytes Go holds for {@code s} decoded from JSON: lone surrogates become U+FFFD. */
  private static long goBytes(String s) {
    return s.replaceAll(
            "[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]",
            "\uFFFD")
        .getBytes(StandardCharsets.UTF_8)
        .length;
  }

  @Test
  void countsEachWidthAndLoneSurrogates() {
    assertThat(AnnotationBytes.utf8("\uD83D")).isEqualTo(3);
    for (String s :
        new String[] {"", "a", "é", "€", "😀", "\uD83D", "\uDE00", "a\uD83Db", "x😀é€"}) {
      assertThat(AnnotationBytes.utf8(s)).as(s).isEqualTo(goBytes(s));
    }
  }

  @Test
  void totalsKeysAndValuesOfAnObjectOnly() {
    assertThat(
            AnnotationBytes.total(
                dev.ironcore.maintenance.api.json.JsonMappers.shared()
                    .createObjectNode()
                    .put("a/b", "é")
                    .put("c", "")))
        .isEqualTo(3 + 2 + 1);
    assertThat(AnnotationBytes.total(null)).isZero();
    assertThat(
            AnnotationBytes.total(
                dev.ironcore.maintenance.api.json.JsonMappers.shared().createArrayNode()))
        .isZero();
  }
}

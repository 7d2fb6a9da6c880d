package dev.ironcore.maintenance.api.patch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonPointerTest {

  @Test
  void escapesTildeBeforeSlash() {
    assertThat(JsonPointer.escape("a/b")).isEqualTo("a~1b");
    assertThat(JsonPointer.escape("a~b")).isEqualTo("a~0b");
    assertThat(JsonPointer.escape("~1")).isEqualTo("~01");
    assertThat(JsonPointer.escape("/~")).isEqualTo("~1~0");
    assertThat(JsonPointer.escape("")).isEmpty();
  }

  @Test
  void joinsEscapedTokens() {
    assertThat(JsonPointer.of("metadata", "annotations", "x.io/y~z"))
        .isEqualTo("/metadata/annotations/x.io~1y~0z");
    assertThat(JsonPointer.of()).isEmpty();
  }
}

package dev.ironcore.maintenance.api.patch;

/**
 * RFC 6901 JSON Pointer helpers for building JSON Patch paths (domain reference §4, "JSON Patch
 * correctness").
 */
public final class JsonPointer {
  private JsonPointer() {}

  /**
   * Escapes one reference token: {@code ~} becomes {@code ~0}, then {@code /} becomes {@code ~1}
   * (in that order, so {@code "~1"} in the input becomes {@code "~01"}, never {@code "/"}).
   *
   * @param token an unescaped token, e.g. an annotation key such as {@code "a.io/b~c"}; not null
   * @return the escaped token, e.g. {@code "a.io~1b~0c"}
   */
  public static String escape(String token) {
    return token.replace("~", "~0").replace("/", "~1");
  }

  /**
   * Builds a pointer from unescaped tokens, escaping each one.
   *
   * @param tokens unescaped tokens, e.g. {@code "metadata", "annotations", "a/b"}
   * @return the pointer, e.g. {@code "/metadata/annotations/a~1b"}; {@code ""} for no tokens
   */
  public static String of(String... tokens) {
    StringBuilder pointer = new StringBuilder();
    for (String token : tokens) {
      pointer.append('/').append(escape(token));
    }
    return pointer.toString();
  }
}

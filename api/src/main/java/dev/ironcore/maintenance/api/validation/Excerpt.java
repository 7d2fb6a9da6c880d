package dev.ironcore.maintenance.api.validation;

/**
 * The start of a value from a request, for a message or a log line: at most {@link #MAX_CHARS}
 * characters, then its length. A message that echoed a whole value grew with it: a review whose
 * {@code kind} was a 6.8 MB string got a 6.8 MB reply and a 6.8 MB log line, and ended the 64 MiB
 * webhook server when the string was not Latin-1 (Java then keeps two bytes per character).
 */
public final class Excerpt {
  /** Most characters shown: 256. */
  public static final int MAX_CHARS = 256;

  private Excerpt() {}

  /**
   * @param value any text, may be null
   * @return {@code value} when it has at most {@link #MAX_CHARS} characters, else its first ones
   *     and {@code "... (N characters, truncated)"}; {@code "null"} for null
   */
  public static String of(String value) {
    if (value == null) {
      return "null";
    }
    return value.length() <= MAX_CHARS
        ? value
        : value.substring(0, MAX_CHARS) + truncated(value.length());
  }

  /**
   * @param length the whole value's length in characters
   * @return what follows the first {@link #MAX_CHARS} characters of a longer value: {@code "... (N
   *     characters, truncated)"}
   */
  public static String truncated(int length) {
    return "... (" + length + " characters, truncated)";
  }
}

package dev.ironcore.maintenance.controller;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations written as Go's {@code time.ParseDuration} does for flags: a sequence of decimal
 * numbers with units {@code ms}, {@code s}, {@code m}, {@code h} (e.g. {@code 50s}, {@code 1m30s},
 * {@code 500ms}, {@code 1.5s}); {@code 0} alone is zero.
 */
public final class GoDuration {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  private GoDuration() {}

  /**
   * @throws IllegalArgumentException naming the text and the expected form when it does not parse
   */
  public static Duration parse(String text) {
    if ("0".equals(text)) {
      return Duration.ZERO;
    }
    Matcher m = PART.matcher(text == null ? "" : text);
    double millis = 0;
    int end = 0;
    while (m.find() && m.start() == end) {
      double n = Double.parseDouble(m.group(1));
      millis +=
          n
              * switch (m.group(2)) {
                case "ms" -> 1;
                case "s" -> 1_000;
                case "m" -> 60_000;
                default -> 3_600_000;
              };
      end = m.end();
    }
    if (end == 0 || end != text.length()) {
      throw new IllegalArgumentException(
          "invalid duration \"" + text + "\": expected e.g. 50s, 1m30s, 500ms");
    }
    return Duration.ofMillis(Math.round(millis));
  }
}

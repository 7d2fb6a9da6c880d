package dev.ironcore.maintenance.process;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Duration flags of every main, written as Go's {@code time.ParseDuration} (kubectl, controller-
 * runtime) writes them, plus days: decimal numbers with units {@code ms}, {@code s}, {@code m},
 * {@code h}, {@code d} (e.g. {@code 50s}, {@code 1m30s}, {@code 500ms}, {@code 1.5s}, {@code 30d}),
 * {@code 0} alone, or ISO-8601 ({@code PT1H}, {@code P30D}). Never negative; a bare number other
 * than {@code 0} is refused (seconds or minutes?). Durations here are whole milliseconds: a longer
 * value is rounded to the nearest millisecond ({@code 1.4ms} is {@code 1ms}), and a positive one
 * under {@code 1ms} is refused rather than rounded to {@code 0}, which turns some flags off.
 */
public final class DurationFlag {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");

  private DurationFlag() {}

  /**
   * The longest duration accepted, in milliseconds: Go's {@code time.Duration} (int64 nanoseconds,
   * about 292 years), so that no value means something else here than in controller-runtime.
   */
  static final double MAX_MILLIS = Long.MAX_VALUE / 1_000_000.0;

  /**
   * @param text the flag's value
   * @return the duration, rounded to the nearest millisecond: zero only for a zero value, else at
   *     least 1ms
   * @throws IllegalArgumentException naming the text and the expected form when it does not parse,
   *     is negative, positive but under 1ms, or longer than Go's durations (2562047h)
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if ("0".equals(t)) {
      return Duration.ZERO;
    }
    if (t.startsWith("p")) {
      try {
        Duration d = Duration.parse(t);
        if (!d.isNegative()) {
          return wholeMillis(text, d.getSeconds() * 1000.0 + d.getNano() / 1_000_000.0);
        }
      } catch (DateTimeParseException e) {
        // reported below
      }
      throw invalid(text);
    }
    Matcher m = PART.matcher(t);
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
                case "h" -> 3_600_000;
                default -> 86_400_000;
              };
      end = m.end();
    }
    if (end == 0 || end != t.length()) {
      throw invalid(text);
    }
    return wholeMillis(text, millis);
  }

  /** {@code millis} (zero or positive) rounded to whole milliseconds, never a positive one to 0. */
  private static Duration wholeMillis(String text, double millis) {
    if (millis > MAX_MILLIS) {
      throw new IllegalArgumentException(
          "invalid duration \"" + text + "\": too large, at most 2562047h (about 292 years)");
    }
    if (millis > 0 && millis < 1) {
      throw new IllegalArgumentException(
          "invalid duration \""
              + text
              + "\": less than 1ms (durations here are whole milliseconds)");
    }
    return Duration.ofMillis(Math.round(millis));
  }

  private static IllegalArgumentException invalid(String text) {
    String t = text == null ? "" : text.trim();
    return new IllegalArgumentException(
        "invalid duration \""
            + text
            + "\": "
            + (t.startsWith("-")
                ? "must not be negative"
                : "expected a number with a unit (ms, s, m, h or d), e.g. 50s, 1m30s, 500ms or 30d"));
  }

  /**
   * A long span for operators' messages (a certificate's time left, a warning window): whole days
   * from two days on ({@code 29 days}); below that in whole seconds as {@link #format} writes them
   * ({@code 47h59m0s}, {@code 58s}); a negative span counts as zero.
   */
  public static String days(Duration d) {
    if (d.toDays() >= 2) {
      return d.toDays() + " days";
    }
    return format(Duration.ofSeconds(Math.max(0, d.toSeconds())));
  }

  /**
   * As Go prints a duration: {@code 0s}, {@code 500ms}, {@code 50s}, {@code 1m30s}, {@code 2h0m0s}.
   */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    String sign = ms < 0 ? "-" : "";
    ms = Math.abs(ms);
    if (ms < 1000) {
      return sign + ms + "ms";
    }
    long h = ms / 3_600_000;
    long m = ms / 60_000 % 60;
    long s = ms / 1000 % 60;
    long frac = ms % 1000;
    StringBuilder out = new StringBuilder(sign);
    if (h > 0) {
      out.append(h).append('h');
    }
    if (h > 0 || m > 0) {
      out.append(m).append('m');
    }
    out.append(s);
    if (frac > 0) {
      out.append('.').append(String.format(Locale.ROOT, "%03d", frac).replaceAll("0+$", ""));
    }
    return out.append('s').toString();
  }

  /** Picocli converter of {@link #parse}; a bad value is a flag error naming the flag. */
  public static final class Converter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}

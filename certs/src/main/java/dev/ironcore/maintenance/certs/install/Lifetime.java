package dev.ironcore.maintenance.certs.install;

import java.time.Duration;

/**
 * A certificate's lifetime as the plan prints it: {@code 365 days}, {@code 1 day}, {@code 12h},
 * {@code 1h30m}, {@code 20s}.
 */
final class Lifetime {
  private Lifetime() {}

  /**
   * @param d a positive duration
   * @return whole days as {@code N days}; otherwise days, hours, minutes and seconds that are not
   *     zero, e.g. {@code 1d12h}, {@code 90m} as {@code 1h30m}, {@code 20s}; under a second in
   *     {@code ms}
   */
  static String human(Duration d) {
    long s = d.getSeconds();
    if (s == 0) {
      return d.toMillis() + "ms";
    }
    if (s % 86_400 == 0 && d.getNano() == 0) {
      long days = s / 86_400;
      return days + (days == 1 ? " day" : " days");
    }
    StringBuilder out = new StringBuilder();
    append(out, s / 86_400, "d");
    append(out, s / 3600 % 24, "h");
    append(out, s / 60 % 60, "m");
    append(out, s % 60, "s");
    return out.toString();
  }

  /**
   * @param d a duration
   * @return it rounded down to its largest whole unit, as VALIDITY takes it: {@code 364d}, {@code
   *     23h}, {@code 59m}, {@code 20s} ({@code 0s} when under a second)
   */
  static String flagValue(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s >= 86_400) {
      return s / 86_400 + "d";
    }
    if (s >= 3600) {
      return s / 3600 + "h";
    }
    if (s >= 60) {
      return s / 60 + "m";
    }
    return s + "s";
  }

  private static void append(StringBuilder out, long n, String unit) {
    if (n > 0) {
      out.append(n).append(unit);
    }
  }
}

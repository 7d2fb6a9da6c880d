package dev.ironcore.maintenance.controller.drain;

import java.time.Duration;

/** Durations in condition and event messages, written like Go's ({@code 1h2m3s}, {@code 500ms}). */
final class HumanDuration {
  private HumanDuration() {}

  /** Whole seconds (milliseconds below one second); negative counts as zero. */
  static String of(Duration d) {
    if (d.isNegative() || d.isZero()) {
      return "0s";
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return d.toMillis() + "ms";
    }
    long s = d.getSeconds();
    StringBuilder b = new StringBuilder();
    if (s >= 3600) {
      b.append(s / 3600).append('h');
    }
    if (s >= 60) {
      b.append(s % 3600 / 60).append('m');
    }
    return b.append(s % 60).append('s').toString();
  }
}

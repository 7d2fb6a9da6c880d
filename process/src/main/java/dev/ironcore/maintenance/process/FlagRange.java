package dev.ironcore.maintenance.process;

import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Range checks of flag values, run before a main starts anything. A value out of range is a {@link
 * CommandLine.ParameterException} naming the flag, the allowed range and the value, e.g. {@code
 * --resync-period must be more than 0, got 0}; {@link Cli} prints it as one line with exit code 2.
 */
public final class FlagRange {
  private FlagRange() {}

  /**
   * @throws CommandLine.ParameterException when {@code value} is zero or negative
   */
  public static Duration positive(CommandSpec spec, String flag, Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), flag + " must be more than 0, got " + DurationFlag.format(value));
    }
    return value;
  }

  /**
   * @throws CommandLine.ParameterException when {@code value} is outside {@code [min, max]}
   */
  public static long between(CommandSpec spec, String flag, long value, long min, long max) {
    if (value < min || value > max) {
      String range =
          max == Long.MAX_VALUE || max == Integer.MAX_VALUE
              ? "at least " + min
              : "from " + min + " to " + max;
      throw new CommandLine.ParameterException(
          spec.commandLine(), flag + " must be " + range + ", got " + value);
    }
    return value;
  }

  /**
   * @throws CommandLine.ParameterException when {@code value} is below {@code min}
   */
  public static int atLeast(CommandSpec spec, String flag, int value, int min) {
    return (int) between(spec, flag, value, min, Integer.MAX_VALUE);
  }
}

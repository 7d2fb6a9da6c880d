package dev.ironcore.maintenance.process;

import ch.qos.logback.classic.Level;
import java.util.Locale;
import picocli.CommandLine;

/**
 * The least severe log lines a process writes ({@code --zap-log-level}, controller-runtime's flag
 * name): {@code debug}, {@code info}, {@code warn} or {@code error}, any case (controller-runtime
 * knows {@code debug}, {@code info}, {@code error} and {@code panic}; {@code warn} is ours).
 * controller-runtime's numeric verbosities are not accepted: we have no levels between them.
 */
public enum LogLevel {
  /**
   * Everything: also one line per allowed admission request and per conversion (webhook server).
   */
  DEBUG(Level.DEBUG),
  /** What an operator acts on: each write to the cluster, denials, start and stop. */
  INFO(Level.INFO),
  /** Only what went wrong or may go wrong. */
  WARN(Level.WARN),
  /** Only failures. */
  ERROR(Level.ERROR);

  private final Level logback;

  LogLevel(Level logback) {
    this.logback = logback;
  }

  /** The logback level of the root logger. */
  Level logback() {
    return logback;
  }

  /**
   * Picocli converter: {@code debug}, {@code info}, {@code warn} or {@code error} (any case);
   * anything else is a usage error.
   */
  public static final class Converter implements CommandLine.ITypeConverter<LogLevel> {
    @Override
    public LogLevel convert(String value) {
      try {
        return LogLevel.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(
            "invalid log level \"" + value + "\": use debug, info, warn or error");
      }
    }
  }
}

package dev.ironcore.maintenance.process;

import java.util.Locale;
import picocli.CommandLine;

/** How a process writes its log lines ({@code --log-format}, or {@code --zap-encoder}). */
public enum LogFormat {
  /** One human-readable line per event: time, thread, level, logger, message. */
  TEXT,
  /**
   * One JSON object per line: {@code ts}, {@code level}, {@code logger}, {@code msg}, {@code
   * thread}, the object acted on as {@code kind}, {@code namespace}, {@code name} (see {@link
   * ObjectLogContext}) and {@code stack_trace} for an exception.
   */
  JSON;

  /**
   * Picocli converter: {@code text} or {@code json}, or controller-runtime's {@code console} for
   * {@code text} ({@code --zap-encoder}), any case; anything else is a usage error.
   */
  public static final class Converter implements CommandLine.ITypeConverter<LogFormat> {
    @Override
    public LogFormat convert(String value) {
      String word = value.trim().toUpperCase(Locale.ROOT);
      if (word.equals("CONSOLE")) {
        return TEXT;
      }
      try {
        return LogFormat.valueOf(word);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(
            "invalid log format \"" + value + "\": use text (or console) or json");
      }
    }
  }
}

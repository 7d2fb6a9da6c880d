package dev.ironcore.maintenance.process;

import picocli.CommandLine.Option;

/**
 * Flags both processes share (a picocli mixin: {@code @Mixin ProcessOptions process;}), named as
 * controller-runtime names them. {@code --help} and {@code --version} come with {@code
 * mixinStandardHelpOptions = true, versionProvider = VersionInfo.Provider.class}.
 */
public final class ProcessOptions {

  @Option(
      names = {"--log-format", "--zap-encoder"},
      paramLabel = "FORMAT",
      defaultValue = "text",
      converter = LogFormat.Converter.class,
      description =
          "Log line format on stderr: text (or console) or json (default: ${DEFAULT-VALUE});"
              + " --zap-encoder is controller-runtime's name for it.")
  LogFormat logFormat = LogFormat.TEXT;

  @Option(
      names = "--zap-log-level",
      paramLabel = "LEVEL",
      converter = LogLevel.Converter.class,
      description =
          "Least severe log lines written: debug, info, warn or error, any case (default:"
              + " info).")
  LogLevel logLevel;

  /** The chosen {@code --log-format} (or {@code --zap-encoder}). */
  public LogFormat logFormat() {
    return logFormat;
  }

  /**
   * The chosen {@code --zap-log-level}; null when not given (then the level stays {@link
   * DefaultLogging}'s: INFO, or {@code -Dironcore.maintenance.log.level}).
   */
  public LogLevel logLevel() {
    return logLevel;
  }

  /**
   * Applies {@code --log-format} and {@code --zap-log-level}; call first in the main's {@code
   * call()}.
   */
  public void applyLogging() {
    Logging.configure(logFormat);
    if (logLevel != null) {
      Logging.setLevel(logLevel);
    }
  }
}

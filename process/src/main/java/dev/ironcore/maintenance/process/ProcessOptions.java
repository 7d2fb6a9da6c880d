package dev.ironcore.maintenance.process;

import picocli.CommandLine.Option;

/**
 * Flags both processes share (a picocli mixin: {@code @Mixin ProcessOptions process;}), named as
 * controller-runtime names them. {@code --help} and {@code --version} come with {@code
 * mixinStandardHelpOptions = true, versionProvider = VersionInfo.Provider.class}.
 */
public final class ProcessOptions {

  @Option(
      names = "--log-format",
      defaultValue = "text",
      converter = LogFormat.Converter.class,
      description = "Log line format on stderr: text or json (default: ${DEFAULT-VALUE}).")
  LogFormat logFormat = LogFormat.TEXT;

  /** The chosen {@code --log-format}. */
  public LogFormat logFormat() {
    return logFormat;
  }

  /** Applies {@code --log-format}; call first in the main's {@code call()}. */
  public void applyLogging() {
    Logging.configure(logFormat);
  }
}

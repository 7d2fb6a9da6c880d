package dev.ironcore.maintenance.process;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import net.logstash.logback.encoder.LogstashEncoder;
import net.logstash.logback.fieldnames.LogstashFieldNames;
import org.slf4j.LoggerFactory;

/**
 * Switches the process's console log (stderr) between text and JSON lines. Levels stay as {@link
 * DefaultLogging} sets them; only the root logger's console appender is replaced.
 */
public final class Logging {
  /** Pattern of {@link LogFormat#TEXT}, also of the logging before the flag is applied. */
  public static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX,UTC} [%thread] %level %logger{0} - %msg%n";

  /** Name of the root logger's console appender. */
  static final String APPENDER = "CONSOLE";

  /** The format {@link #configure} last applied; null until then. */
  private static volatile LogFormat current;

  private Logging() {}

  /** The format {@link #configure} last applied ({@code --log-format}); null before. */
  public static LogFormat current() {
    return current;
  }

  /**
   * Replaces the console appender of the root logger by one writing {@code format} to stderr. Call
   * it first in a main, before anything logs.
   *
   * @throws IllegalStateException when SLF4J is not bound to logback
   */
  public static void configure(LogFormat format) {
    LoggerContext context = context();
    Encoder<ILoggingEvent> encoder =
        format == LogFormat.JSON ? jsonEncoder(context) : textEncoder(context);
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName(APPENDER);
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAppender(APPENDER);
    root.addAppender(appender);
    current = format;
  }

  /**
   * Sets the root logger's level ({@code --zap-log-level}); loggers {@link DefaultLogging} quiets
   * (Jetty, fabric8's version warnings) keep their own levels.
   *
   * @throws IllegalStateException when SLF4J is not bound to logback
   */
  public static void setLevel(LogLevel level) {
    context().getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(level.logback());
  }

  private static LoggerContext context() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      throw new IllegalStateException(
          "SLF4J is bound to " + LoggerFactory.getILoggerFactory().getClass() + ", not logback");
    }
    return context;
  }

  /**
   * The text format's encoder: {@link #TEXT_PATTERN}, its {@code %msg} written on one line ({@link
   * OneLineMessageConverter}).
   */
  static Encoder<ILoggingEvent> textEncoder(LoggerContext context) {
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.getInstanceConverterMap().put("msg", OneLineMessageConverter::new);
    layout.setPattern(TEXT_PATTERN);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();
    return encoder;
  }

  /**
   * logstash-logback-encoder with controller-runtime's short field names: {@code ts}, {@code
   * level}, {@code logger}, {@code msg}, {@code thread}; MDC entries and structured arguments
   * become top-level fields.
   */
  static Encoder<ILoggingEvent> jsonEncoder(LoggerContext context) {
    LogstashEncoder encoder = new LogstashEncoder();
    encoder.setContext(context);
    LogstashFieldNames names = new LogstashFieldNames();
    names.setTimestamp("ts");
    names.setLevel("level");
    names.setLogger("logger");
    names.setMessage("msg");
    names.setThread("thread");
    names.setVersion("[ignore]");
    names.setLevelValue("[ignore]");
    encoder.setFieldNames(names);
    encoder.start();
    return encoder;
  }
}

package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What {@code --log-format} makes of real log calls, read back from stderr. */
class LoggingTest {
  private static final Logger LOG = LoggerFactory.getLogger("dev.ironcore.maintenance.Example");
  private final PrintStream originalErr = System.err;

  @AfterEach
  void restore() {
    System.setErr(originalErr);
    Logging.configure(LogFormat.TEXT);
    Logging.setLevel(LogLevel.INFO);
  }

  private static String capture(LogFormat format, Runnable logging) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream previous = System.err;
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      Logging.configure(format);
      logging.run();
    } finally {
      System.setErr(previous);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theDefaultConfigurationIsAppliedWithoutErrorsAndSetsTheLevels() {
    var context = (ch.qos.logback.classic.LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(new ch.qos.logback.core.status.StatusUtil(context).getHighestLevel(0))
        .as(context.getStatusManager().getCopyOfStatusList().toString())
        .isLessThan(ch.qos.logback.core.status.Status.ERROR);
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.INFO);
    assertThat(
            context
                .getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils")
                .getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.ERROR);
    assertThat(context.getLogger("org.eclipse.jetty").getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.WARN);
    assertThat(context.getLogger("io.fabric8.kubernetes.client.CustomResource").getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.INFO);
    assertThat(
            context.getLogger("io.fabric8.kubernetes.client.jdkhttp.JdkWebSocketImpl").getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.ERROR);
    assertThat(
            context
                .getLogger("io.fabric8.kubernetes.client.informers.impl.cache.Reflector")
                .getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.ERROR);
    // set in code (DefaultLogging), not read from XML: logback's Joran never ran
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE")).isNotNull();
    assertThat(context.getStatusManager().getCopyOfStatusList())
        .anySatisfy(st -> assertThat(st.getMessage()).isEqualTo(DefaultLogging.CONFIGURED));
  }

  /**
   * Fresh eyes (session 38): a review's uid holding a newline wrote a forged ERROR line into the
   * text log, a NUL made the log binary for grep; every event is one line now, in both formats.
   */
  @Test
  void whatAClientSentCannotForgeALogLine() {
    String forged =
        "abc\n2026-12-06T06:00:00.000Z [main] ERROR WebhookServer - FORGED\r\u0000\u2028\u0085end\ttab";
    String text = capture(LogFormat.TEXT, () -> LOG.warn("rejected review uid={}", forged));
    assertThat(text.lines()).hasSize(1);
    assertThat(text)
        .contains(
            "rejected review uid=abc\\n2026-12-06T06:00:00.000Z [main] ERROR WebhookServer -"
                + " FORGED\\r\\u0000\\u2028\\u0085end\ttab")
        .doesNotContain("\u0000");
    String json = capture(LogFormat.JSON, () -> LOG.warn("rejected review uid={}", forged));
    assertThat(json.lines()).hasSize(1);
    assertThat(OneLineMessageConverter.escape("plain")).isSameAs("plain");
  }

  @Test
  void theLevelFlagDecidesWhichLinesAreWrittenAndLeavesQuietedLoggersAlone() {
    var context = (ch.qos.logback.classic.LoggerContext) LoggerFactory.getILoggerFactory();
    String info =
        capture(
            LogFormat.TEXT,
            () -> {
              LOG.debug("debug line");
              LOG.info("info line");
            });
    assertThat(info).contains("info line").doesNotContain("debug line");
    Logging.setLevel(LogLevel.DEBUG);
    assertThat(capture(LogFormat.TEXT, () -> LOG.debug("debug line"))).contains("debug line");
    Logging.setLevel(LogLevel.ERROR);
    String error =
        capture(
            LogFormat.TEXT,
            () -> {
              LOG.warn("warn line");
              LOG.error("error line");
            });
    assertThat(error).contains("error line").doesNotContain("warn line");
    assertThat(context.getLogger("org.eclipse.jetty").getLevel())
        .isEqualTo(ch.qos.logback.classic.Level.WARN);
  }

  @Test
  void jsonLinesCarryLevelLoggerMessageAndTheObjectActedOn() throws Exception {
    String out =
        capture(
            LogFormat.JSON,
            () -> {
              LOG.info("outside any object");
              try (var ctx = ObjectLogContext.of("Machine", "demo", "vm-1")) {
                LOG.info("evicted machine {} from pool {}", "demo/vm-1", "pool-a");
              }
              try (var ctx = ObjectLogContext.of("MachinePool", null, "pool \"a\"")) {
                LOG.warn("marked Unknown", new IllegalStateException("boom"));
              }
            });
    List<JsonNode> lines = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : out.lines().toList()) {
      lines.add(json.readTree(line));
    }
    assertThat(lines).hasSize(3);

    assertThat(lines.get(0).get("msg").asText()).isEqualTo("outside any object");
    assertThat(lines.get(0).has("kind")).isFalse();

    JsonNode action = lines.get(1);
    assertThat(action.get("level").asText()).isEqualTo("INFO");
    assertThat(action.get("logger").asText()).isEqualTo("dev.ironcore.maintenance.Example");
    assertThat(action.get("msg").asText()).isEqualTo("evicted machine demo/vm-1 from pool pool-a");
    assertThat(action.get("kind").asText()).isEqualTo("Machine");
    assertThat(action.get("namespace").asText()).isEqualTo("demo");
    assertThat(action.get("name").asText()).isEqualTo("vm-1");
    assertThat(action.has("ts")).isTrue();

    JsonNode cluster = lines.get(2);
    assertThat(cluster.get("level").asText()).isEqualTo("WARN");
    assertThat(cluster.get("kind").asText()).isEqualTo("MachinePool");
    assertThat(cluster.get("name").asText()).isEqualTo("pool \"a\"");
    assertThat(cluster.has("namespace")).as("cluster-scoped").isFalse();
    assertThat(cluster.get("stack_trace").asText()).contains("IllegalStateException: boom");
  }

  @Test
  void textLinesAreOneLinePerEventAndTheContextIsRestoredAfterwards() {
    String out =
        capture(
            LogFormat.TEXT,
            () -> {
              try (var outer = ObjectLogContext.of("Machine", "a", "x")) {
                try (var inner = ObjectLogContext.of("MachinePool", null, "p")) {
                  LOG.info("inner");
                }
                assertThat(org.slf4j.MDC.get("kind")).isEqualTo("Machine");
                assertThat(org.slf4j.MDC.get("namespace")).isEqualTo("a");
              }
              assertThat(org.slf4j.MDC.get("kind")).isNull();
            });
    assertThat(out).matches("\\d{4}-\\d\\d-\\d\\dT\\S+Z \\[\\S+\\] INFO Example - inner\\n");
  }
}

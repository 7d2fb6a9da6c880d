package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

class StartFailureTest {
  private final PrintStream originalErr = System.err;

  @AfterEach
  void restore() {
    System.setErr(originalErr);
    Logging.configure(LogFormat.TEXT);
  }

  /** A main as ours are: logging applied first in call(), then a flag refused. */
  @Command(name = "example")
  static final class Example implements java.util.concurrent.Callable<Integer> {
    @Mixin ProcessOptions process;

    @Option(names = "--port")
    int port;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      process.applyLogging();
      throw new CommandLine.ParameterException(
          spec.commandLine(), "cannot listen on :" + port + ": Address already in use");
    }
  }

  private record Run(int exitCode, String cliErr, String stderr) {}

  private static Run run(String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream previous = System.err;
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      StringWriter err = new StringWriter();
      CommandLine cli = Cli.of(new Example());
      cli.setErr(new PrintWriter(err));
      int code = cli.execute(args);
      return new Run(code, err.toString(), bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(previous);
    }
  }

  @Test
  void withJsonLogsTheReasonIsAJsonErrorLine() throws Exception {
    Run r = run("--log-format=json", "--port=8081");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.cliErr()).isEmpty();
    assertThat(r.stderr().lines()).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(r.stderr());
    assertThat(line.get("level").asText()).isEqualTo("ERROR");
    assertThat(line.get("logger").asText()).isEqualTo("example");
    assertThat(line.get("msg").asText())
        .isEqualTo("cannot listen on :8081: Address already in use");
  }

  @Test
  void withTextLogsAndBeforeLoggingItIsOnePlainLine() {
    Run text = run("--log-format=text", "--port=8081");
    assertThat(text.exitCode()).isEqualTo(2);
    assertThat(text.cliErr())
        .isEqualTo(
            "example: cannot listen on :8081: Address already in use" + System.lineSeparator());
    assertThat(text.stderr()).isEmpty();
    // a flag picocli refuses before call(): the log format is not applied yet
    Run refused = run("--log-format=json", "--port=x");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.cliErr()).startsWith("example: Invalid value for option '--port'");
  }
}

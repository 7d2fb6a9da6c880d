package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ProcessOptionsTest {

  @Command(
      name = "example",
      mixinStandardHelpOptions = true,
      versionProvider = VersionInfo.Provider.class)
  static final class Example implements Callable<Integer> {
    @Mixin ProcessOptions process;

    @Override
    public Integer call() {
      return 0;
    }
  }

  @Test
  void logFormatIsTextOrJson() {
    Example e = new Example();
    new CommandLine(e).parseArgs("--log-format=JSON");
    assertThat(e.process.logFormat()).isEqualTo(LogFormat.JSON);
    new CommandLine(e).parseArgs();
    assertThat(e.process.logFormat()).isEqualTo(LogFormat.TEXT);
    assertThatThrownBy(() -> new CommandLine(new Example()).parseArgs("--log-format=xml"))
        .hasMessageContaining("invalid log format \"xml\": use text (or console) or json");
  }

  /** Review (session 51): controller-runtime's name of the flag, with its words, was refused. */
  @Test
  void zapEncoderIsControllerRuntimesNameOfTheLogFormat() {
    Example e = new Example();
    new CommandLine(e).parseArgs("--zap-encoder=json");
    assertThat(e.process.logFormat()).isEqualTo(LogFormat.JSON);
    new CommandLine(e).parseArgs("--zap-encoder", "console");
    assertThat(e.process.logFormat()).isEqualTo(LogFormat.TEXT);
    new CommandLine(e).parseArgs("--log-format=console");
    assertThat(e.process.logFormat()).isEqualTo(LogFormat.TEXT);
  }

  @Test
  void zapLogLevelTakesControllerRuntimesWordsAndIsAbsentByDefault() {
    Example e = new Example();
    new CommandLine(e).parseArgs("--zap-log-level=Debug");
    assertThat(e.process.logLevel()).isEqualTo(LogLevel.DEBUG);
    new CommandLine(e).parseArgs("--zap-log-level", "error");
    assertThat(e.process.logLevel()).isEqualTo(LogLevel.ERROR);
    Example none = new Example();
    new CommandLine(none).parseArgs();
    assertThat(none.process.logLevel()).isNull();
    assertThatThrownBy(() -> new CommandLine(new Example()).parseArgs("--zap-log-level=5"))
        .hasMessageContaining("invalid log level \"5\": use debug, info, warn or error");
  }

  @Test
  void versionPrintsTheBuildsVersionAndCommit() {
    StringWriter out = new StringWriter();
    int code = new CommandLine(new Example()).setOut(new PrintWriter(out)).execute("--version");
    assertThat(code).isZero();
    VersionInfo v = VersionInfo.current();
    assertThat(v.version()).isEqualTo(System.getProperty("project.version", v.version()));
    assertThat(v.version()).matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(out.toString())
        .isEqualTo("example " + v.version() + " (commit " + v.commit() + ")\n");
  }

  @Test
  void theCommitIsFilledWhenBuiltFromAGitCheckout() {
    assertThat(VersionInfo.current().commit()).matches("[0-9a-f]{12}(-dirty)?");
  }

  @Test
  void bindAddressesAsControllerRuntimeWritesThem() {
    assertThat(BindAddress.parse("0")).isEmpty();
    assertThat(BindAddress.parse(":8080")).isEqualTo(Optional.of(new InetSocketAddress(8080)));
    assertThat(BindAddress.parse("127.0.0.1:0"))
        .isEqualTo(Optional.of(new InetSocketAddress("127.0.0.1", 0)));
    assertThat(BindAddress.parse("[::1]:9"))
        .hasValueSatisfying(a -> assertThat(a.getPort()).isEqualTo(9));
    assertThatThrownBy(() -> BindAddress.parse("8080")).hasMessageContaining("want host:port");
    assertThatThrownBy(() -> BindAddress.parse(":http")).hasMessageContaining("port must be");
    assertThatThrownBy(() -> BindAddress.parse(":70000")).hasMessageContaining("port must be");
  }
}

package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

class CliTest {
  @Command(name = "demo")
  static final class Demo implements Callable<Integer> {
    @Option(names = "--period", defaultValue = "5m", converter = DurationFlag.Converter.class)
    java.time.Duration period;

    @Option(names = "--on")
    boolean on;

    @Option(names = "--warnings", defaultValue = "true", negatable = true, fallbackValue = "true")
    boolean warnings;

    @Option(names = "--tls-cert-file", paramLabel = "FILE", required = true)
    String certFile = "";

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      FlagRange.positive(spec, "--period", period);
      return 0;
    }
  }

  private static int run(Demo demo, StringWriter err, String... args) {
    return Cli.of(demo).setErr(new PrintWriter(err, true)).execute(args);
  }

  @Test
  void theLastValueOfARepeatedFlagWins() {
    Demo demo = new Demo();
    assertThat(
            run(
                demo,
                new StringWriter(),
                "--tls-cert-file=a.crt",
                "--period=1m",
                "--on",
                "--period=20s",
                "--on"))
        .isZero();
    assertThat(demo.period).hasSeconds(20);
    assertThat(demo.on).isTrue();
  }

  /**
   * No {@code @file} arguments (Go's flags have none): make run's checks of the extra flags must
   * see every flag (fresh eyes, session 45: {@code --kubeconfig} in an @file passed them).
   */
  @Test
  void anAtFileIsNotReadForFlags(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file =
        java.nio.file.Files.writeString(dir.resolve("args"), "--tls-cert-file=a.crt\n--on\n");
    Demo demo = new Demo();
    StringWriter err = new StringWriter();
    assertThat(run(demo, err, "--tls-cert-file=b.crt", "@" + file)).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("demo: Unmatched argument at index 1: '@" + file + "'\n");
    assertThat(demo.on).as("nothing read from the file").isFalse();
  }

  /**
   * {@code --on true}: a boolean flag takes no separate value; the line says how to write it (fresh
   * eyes, session 47: "Unmatched argument at index 4: 'true'" alone).
   */
  @Test
  void aBooleanFlagsSeparateValueIsAnsweredWithTheFormThatWorks() {
    StringWriter err = new StringWriter();
    assertThat(run(new Demo(), err, "--tls-cert-file=a.crt", "--on", "TRUE")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "demo: Unmatched argument at index 2: 'TRUE' (a boolean flag takes its value after"
                + " '=': --on=true)\n");
    StringWriter other = new StringWriter();
    assertThat(run(new Demo(), other, "--tls-cert-file=a.crt", "--period=1m", "true")).isEqualTo(2);
    assertThat(other.toString())
        .as("not after a boolean flag: no hint")
        .isEqualTo("demo: Unmatched argument at index 2: 'true'\n");
  }

  @Test
  void aBadFlagIsOneLineAndExitCode2() {
    StringWriter err = new StringWriter();
    assertThat(run(new Demo(), err, "--tls-cert-file=a.crt", "--period=0")).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("demo: --period must be more than 0, got 0s\n");

    StringWriter unknown = new StringWriter();
    assertThat(run(new Demo(), unknown, "--tls-cert-file=a.crt", "--kubeconfig=/nonexistent"))
        .isEqualTo(2);
    assertThat(unknown.toString()).isEqualTo("demo: Unknown option: '--kubeconfig=/nonexistent'\n");

    StringWriter bad = new StringWriter();
    assertThat(run(new Demo(), bad, "--tls-cert-file=a.crt", "--period=soon")).isEqualTo(2);
    assertThat(bad.toString().lines()).hasSize(1);
    assertThat(bad.toString()).contains("--period", "invalid duration \"soon\"");
  }

  /**
   * A boolean flag takes true or false attached, any case; an empty or other value is refused
   * (fresh eyes, session 44: {@code --no-eviction-warnings=} turned the warnings on).
   */
  @Test
  void aBooleanFlagTakesTrueOrFalseOnly() {
    for (String[] c :
        new String[][] {
          {"--on", "true", "true"},
          {"--on=false", "false", "true"},
          {"--on=TRUE", "true", "true"},
          {"--no-warnings", "false", "false"},
          {"--warnings=false", "false", "false"},
          {"--no-warnings=false", "false", "true"},
          {"--warnings", "false", "true"},
        }) {
      Demo demo = new Demo();
      assertThat(run(demo, new StringWriter(), "--tls-cert-file=a.crt", c[0])).as(c[0]).isZero();
      assertThat(c[0].startsWith("--on") ? demo.on : demo.warnings)
          .as(c[0])
          .isEqualTo(Boolean.parseBoolean(c[0].startsWith("--on") ? c[1] : c[2]));
    }
    for (String bad : new String[] {"--on=", "--on=yes", "--no-warnings=", "--warnings=1"}) {
      StringWriter err = new StringWriter();
      assertThat(run(new Demo(), err, "--tls-cert-file=a.crt", bad)).as(bad).isEqualTo(2);
      assertThat(err.toString().lines()).as(bad).hasSize(1);
      assertThat(err.toString()).as(bad).contains("is not true or false");
      // the flag is named, the empty value's too (fresh eyes, session 51)
      assertThat(err.toString())
          .as(bad)
          .contains("Invalid value for option '" + bad.substring(0, bad.indexOf('=')) + "': '");
    }
  }

  @Test
  void aMistypedFlagIsNamedBeforeTheRequiredOneItMissed() {
    StringWriter typo = new StringWriter();
    assertThat(run(new Demo(), typo, "--tls-cert-fil=a.crt", "--on")).isEqualTo(2);
    assertThat(typo.toString())
        .isEqualTo(
            "demo: Unknown option: '--tls-cert-fil=a.crt' (did you mean --tls-cert-file?)\n");

    StringWriter missing = new StringWriter();
    assertThat(run(new Demo(), missing, "--on")).isEqualTo(2);
    assertThat(missing.toString())
        .isEqualTo("demo: Missing required option: '--tls-cert-file=FILE'\n");
  }
}

package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class WebhookServerMainTest {
  @TempDir Path dir;

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new WebhookServerMain());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void helpListsTheFlagsWithDefaults() {
    Run r = run("--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains(
            "--port",
            "9443",
            "--bind-address",
            "0.0.0.0",
            "--tls-cert-file",
            "--tls-private-key-file",
            "--capi-machine-selector",
            "--max-threads",
            "16");
  }

  @Test
  void tooFewThreadsIsAFlagError() {
    Run r = run("--tls-cert-file", "c", "--tls-private-key-file", "k", "--max-threads", "4");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--max-threads must be at least 8, got 4");
  }

  @Test
  void badSelectorIsAFlagError() {
    Run r =
        run(
            "--tls-cert-file",
            "c",
            "--tls-private-key-file",
            "k",
            "--capi-machine-selector",
            "a in (");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("invalid label selector");
  }

  @Test
  void certificateFlagsAreRequired() {
    Run r = run("--port", "0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--tls-cert-file");
  }

  @Test
  void unreadableCertificateFailsTheStart() {
    Run r =
        run(
            "--port",
            "0",
            "--tls-cert-file",
            dir.resolve("none.crt").toString(),
            "--tls-private-key-file",
            dir.resolve("none.key").toString());
    assertThat(r.exitCode()).isEqualTo(1);
  }
}

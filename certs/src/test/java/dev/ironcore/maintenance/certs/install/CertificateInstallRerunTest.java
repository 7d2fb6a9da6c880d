package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "done" and "up to date" mean served, also on a rerun (fresh eyes: after a make certs whose wait
 * timed out on a stopped webhook server, the next run issued nothing and said "up to date" at once,
 * exit 0, while the server still presented nothing new).
 */
class CertificateInstallRerunTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private void run(MemoryTrust trust) {
    new CertificateInstall(
            new CertificateInstall.Settings(
                CertificateInstall.Mode.ENSURE,
                false,
                "ironcore-maintenance-webhook",
                List.of("ironcore-maintenance-webhook", "localhost"),
                List.of("127.0.0.1"),
                null,
                null,
                Duration.ofDays(3650),
                Duration.ofSeconds(1)),
            new CaFiles(dir.resolve("ca")),
            new FilePairStore(dir.resolve("serving")),
            trust,
            new ServerProbe(List.of()),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            Clock.systemUTC())
        .run();
  }

  private String output() {
    String s = out.toString(StandardCharsets.UTF_8);
    out.reset();
    return s;
  }

  @Test
  void aRerunWaitsForAServerThatDoesNotPresentTheStoredPairAndIsUpToDateOnceItDoes()
      throws Exception {
    int port;
    MemoryTrust trust;
    // a stopped server: the kernel accepts, nobody answers
    try (ServerSocket stopped = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      port = stopped.getLocalPort();
      trust = new MemoryTrust("https://127.0.0.1:" + port + "/validate", "m1");
      assertThatThrownBy(() -> run(trust))
          .hasMessageContaining("accepts connections but completed no TLS handshake");
      output();

      assertThatThrownBy(() -> run(trust))
          .as("the rerun issues nothing, but still waits")
          .hasMessageContaining("accepts connections but completed no TLS handshake");
      assertThat(output())
          .contains("wait until the running webhook server(s) present the serving certificate of")
          .doesNotContain("up to date");
    }
    // the server answers again, with the pair written by the first run
    var stored = new FilePairStore(dir.resolve("serving")).read().orElseThrow();
    try (TlsTestServer server =
        new TlsTestServer(stored.certificatePem(), stored.privateKeyPem(), port)) {
      run(trust);
      assertThat(output()).startsWith("serving pair: ").contains("\nup to date: ");
    }
  }
}

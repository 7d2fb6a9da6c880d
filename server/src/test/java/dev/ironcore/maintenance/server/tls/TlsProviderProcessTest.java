package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.WebhookServerMain;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.JavaMain;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server process with each {@code --tls-provider}, its native library loads logged ({@code
 * -Xlog:library}); on a platform Conscrypt has no native library for (the JVM told it runs on
 * {@code sparcv9}, so Conscrypt looks for {@code conscrypt_openjdk_jni-linux-sparc_64}) {@code
 * auto} serves with the JDK's TLS and says why, {@code conscrypt} refuses to start.
 */
class TlsProviderProcessTest {
  @TempDir Path dir;

  private static final String SPARC = "-Dos.arch=sparcv9";

  private Process start(TestCertificates certs, int port, String provider, String jvmOptions)
      throws Exception {
    ProcessBuilder pb = serverProcess(certs, port, dir.resolve("server.log"), provider);
    pb.environment().put("JAVA_TOOL_OPTIONS", jvmOptions + " -Xlog:library=info");
    return pb.start();
  }

  /**
   * The webhook server as a process of its own on {@code 127.0.0.1:port}, without a cluster
   * (eviction warnings off), its output to {@code log}.
   *
   * @param provider {@code --tls-provider}
   */
  static ProcessBuilder serverProcess(
      TestCertificates certs, int port, java.nio.file.Path log, String provider) {
    return JavaMain.processBuilder(
            WebhookServerMain.class,
            "--port=" + port,
            "--bind-address=127.0.0.1",
            "--tls-cert-file=" + certs.certFile(),
            "--tls-private-key-file=" + certs.keyFile(),
            "--no-eviction-warnings",
            "--tls-provider=" + provider)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
  }

  private String log() throws Exception {
    return Files.readString(dir.resolve("server.log"));
  }

  /** Starts the server, waits for {@code /healthz} to answer 200, stops it; returns its log. */
  private String serveOnce(String provider, String jvmOptions) throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    int port = FreePorts.pick(1).get(0);
    Process server = start(certs, port, provider, jvmOptions);
    try {
      HttpClient client =
          HttpClient.newBuilder()
              .sslContext(SslContexts.trusting(certs.caFile()))
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      HttpResponse<String> healthz = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (healthz == null && System.nanoTime() < deadline && server.isAlive()) {
        try {
          healthz =
              client.send(
                  HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/healthz"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException notYet) {
          Thread.sleep(100);
        }
      }
      assertThat(healthz).as(log()).isNotNull();
      assertThat(healthz.statusCode()).isEqualTo(200);
      return log();
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
      server.destroyForcibly();
    }
  }

  @Test
  void autoLoadsConscryptsNativeLibraryHere() throws Exception {
    assertThat(serveOnce("auto", ""))
        .contains("TLS Conscrypt 2.")
        .containsPattern("Loaded library .*libconscrypt_openjdk_jni");
  }

  /** Not even Jetty's Conscrypt ALPN support, which would load it on its own. */
  @Test
  void jdkNeverLoadsConscryptsNativeLibrary() throws Exception {
    assertThat(serveOnce("jdk", ""))
        .contains("TLS JDK SunJSSE)")
        .doesNotContain("conscrypt_openjdk_jni")
        .doesNotContain("Conscrypt unavailable");
  }

  @Test
  void autoFallsBackToTheJdkAndSaysWhy() throws Exception {
    assertThat(serveOnce("auto", SPARC))
        .contains("TLS JDK SunJSSE (Conscrypt unavailable: UnsatisfiedLinkError:")
        .contains("sparc");
  }

  @Test
  void conscryptRefusesToStartWhereItsLibraryDoesNotLoad() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    Process server = start(certs, FreePorts.pick(1).get(0), "conscrypt", SPARC);
    try {
      assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("exits on its own").isTrue();
      assertThat(server.exitValue()).as(log()).isEqualTo(1);
    } finally {
      server.destroyForcibly();
    }
    assertThat(log())
        .contains("webhook-server: --tls-provider=conscrypt: Conscrypt's native library does not")
        .contains("/sparcv9 (UnsatisfiedLinkError:")
        .contains("use --tls-provider=jdk or auto")
        .doesNotContain("listening");
  }
}

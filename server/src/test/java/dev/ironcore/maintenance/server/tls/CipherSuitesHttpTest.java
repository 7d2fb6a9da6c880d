package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.LoopbackServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real HTTPS server picks its preferred cipher suite among those a client offers. */
class CipherSuitesHttpTest {
  @TempDir static Path dir;
  static LoopbackServer started;

  @BeforeAll
  static void start() {
    started = LoopbackServer.start(dir);
  }

  @AfterAll
  static void stop() {
    started.server().stop();
  }

  /** The suite negotiated when the client offers {@code suites} (its own preference first). */
  private static String negotiated(String protocol, String... suites) throws Exception {
    SSLParameters params = new SSLParameters(suites, new String[] {protocol});
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(SslContexts.trusting(started.certs().caFile()))
            .sslParameters(params)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create(started.base() + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.sslSession().orElseThrow().getCipherSuite();
  }

  @Test
  void prefersChaCha20OverAesGcmWhatEverTheClientPrefers() throws Exception {
    assertThat(
            negotiated(
                "TLSv1.3",
                "TLS_AES_256_GCM_SHA384",
                "TLS_AES_128_GCM_SHA256",
                "TLS_CHACHA20_POLY1305_SHA256"))
        .isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
    assertThat(
            negotiated(
                "TLSv1.2",
                "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"))
        .contains("CHACHA20_POLY1305");
  }

  @Test
  void aClientWithoutChaCha20GetsAesGcm() throws Exception {
    assertThat(negotiated("TLSv1.3", "TLS_AES_256_GCM_SHA384")).isEqualTo("TLS_AES_256_GCM_SHA384");
  }

  @Test
  void cbcSuitesAreRefused() {
    assertThatThrownBy(
            () ->
                negotiated(
                    "TLSv1.2",
                    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
                    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"))
        .isInstanceOf(IOException.class);
  }
}

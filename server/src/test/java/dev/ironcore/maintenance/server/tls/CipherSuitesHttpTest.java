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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real HTTPS server, with each TLS provider: which protocol versions, cipher suites and ALPN
 * protocols it negotiates with a JDK client.
 */
class CipherSuitesHttpTest {
  @TempDir Path dir;
  LoopbackServer started;

  @AfterEach
  void stop() {
    if (started != null) {
      started.server().stop();
    }
  }

  private void start(TlsProvider provider) {
    started = LoopbackServer.start(dir, provider);
  }

  /** The suite negotiated when the client offers {@code suites} (its own preference first). */
  private String negotiated(String protocol, String... suites) throws Exception {
    return send(protocol, HttpClient.Version.HTTP_2, suites)
        .sslSession()
        .orElseThrow()
        .getCipherSuite();
  }

  private HttpResponse<String> send(String protocol, HttpClient.Version version, String... suites)
      throws Exception {
    SSLParameters params = new SSLParameters(suites, new String[] {protocol});
    HttpClient client =
        HttpClient.newBuilder()
            .version(version)
            .sslContext(SslContexts.trusting(started.certs().caFile()))
            .sslParameters(params)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create(started.base() + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response;
  }

  private static final String[] TLS13_AES_FIRST = {
    "TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256"
  };

  @Test
  void theJdkProviderPrefersChaCha20OverAesGcmWhatEverTheClientPrefers() throws Exception {
    start(TlsProvider.JDK);
    assertThat(negotiated("TLSv1.3", TLS13_AES_FIRST)).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
  }

  /** BoringSSL's AES-GCM is native (AES-NI), so in TLS 1.3 the client's preference stands. */
  @Test
  void conscryptTakesTheClientsTls13Preference() throws Exception {
    start(TlsProvider.CONSCRYPT);
    assertThat(negotiated("TLSv1.3", TLS13_AES_FIRST)).isEqualTo("TLS_AES_256_GCM_SHA384");
  }

  /** On linux x86_64 (where the tests run) Conscrypt's native library loads: auto picks it. */
  @Test
  void autoPicksConscryptWhereItLoads() throws Exception {
    start(TlsProvider.AUTO);
    assertThat(TlsProvider.AUTO.describe()).startsWith("Conscrypt 2.");
    assertThat(negotiated("TLSv1.3", TLS13_AES_FIRST)).isEqualTo("TLS_AES_256_GCM_SHA384");
  }

  @ParameterizedTest
  @EnumSource(names = {"CONSCRYPT", "JDK"})
  void tls12FollowsTheServersOrder(TlsProvider provider) throws Exception {
    start(provider);
    assertThat(
            negotiated(
                "TLSv1.2",
                "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"))
        .contains("CHACHA20_POLY1305");
  }

  @ParameterizedTest
  @EnumSource(names = {"CONSCRYPT", "JDK"})
  void aClientWithoutChaCha20GetsAesGcm(TlsProvider provider) throws Exception {
    start(provider);
    assertThat(negotiated("TLSv1.3", "TLS_AES_256_GCM_SHA384")).isEqualTo("TLS_AES_256_GCM_SHA384");
    assertThat(negotiated("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))
        .isEqualTo("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
  }

  @ParameterizedTest
  @EnumSource(names = {"CONSCRYPT", "JDK"})
  void alpnNegotiatesHttp2AndHttp11(TlsProvider provider) throws Exception {
    start(provider);
    assertThat(send("TLSv1.3", HttpClient.Version.HTTP_2, TLS13_AES_FIRST).version())
        .isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(send("TLSv1.3", HttpClient.Version.HTTP_1_1, TLS13_AES_FIRST).version())
        .isEqualTo(HttpClient.Version.HTTP_1_1);
  }

  @ParameterizedTest
  @EnumSource(names = {"CONSCRYPT", "JDK"})
  void cbcSuitesAndTls11AreRefused(TlsProvider provider) {
    start(provider);
    assertThatThrownBy(
            () ->
                negotiated(
                    "TLSv1.2",
                    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
                    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> negotiated("TLSv1.1", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"))
        .isInstanceOf(IOException.class);
  }
}

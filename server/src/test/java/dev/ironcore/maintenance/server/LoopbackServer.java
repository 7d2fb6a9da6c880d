package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import dev.ironcore.maintenance.server.tls.TlsProvider;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The real HTTPS webhook server on a free loopback port with fresh test certificates (no periodic
 * reload), as the HTTP-level tests start it.
 *
 * @param certs the CA and serving certificate it was started with
 * @param server the running server
 * @param base {@code https://127.0.0.1:<port>}
 */
public record LoopbackServer(TestCertificates certs, WebhookServer server, String base) {

  /** Creates certificates in {@code dir} and starts the server with all routes. */
  public static LoopbackServer start(Path dir) {
    return start(dir, TlsProvider.AUTO);
  }

  /** As {@link #start(Path)}, serving TLS with {@code tls}. */
  public static LoopbackServer start(Path dir, TlsProvider tls) {
    return start(dir, config -> config.withTlsProvider(tls));
  }

  /** As {@link #start(Path)}, with the settings {@code tune} makes of the loopback ones. */
  public static LoopbackServer start(Path dir, UnaryOperator<WebhookServerConfig> tune) {
    TestCertificates certs = TestCertificates.create(dir);
    WebhookServer server =
        new WebhookServer(
            tune.apply(
                WebhookServerConfig.of(certs.certFile(), certs.keyFile())
                    .withBindAddress("127.0.0.1")
                    .withCertificateReloadInterval(Duration.ZERO)));
    return new LoopbackServer(certs, server, "https://127.0.0.1:" + server.start(0));
  }

  /** A JDK client speaking {@code version} that trusts the test CA (10 s connect timeout). */
  public HttpClient client(HttpClient.Version version) {
    return HttpClient.newBuilder()
        .version(version)
        .sslContext(SslContexts.trusting(certs.caFile()))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }
}

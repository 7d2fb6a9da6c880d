package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.LoopbackServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALPN with a client that offers only protocols the server does not speak ({@code curl --http1.0}
 * offers {@code http/1.0}): fresh eyes found Conscrypt's handshake accepting the client's protocol
 * and the server then dropping the connection without a word (Jetty's negotiation throws inside
 * Conscrypt's callback). Now Conscrypt acknowledges no protocol and the connection speaks HTTP/1.1,
 * as for a client without ALPN; the JDK's TLS refuses the handshake (a fatal alert, as Go's servers
 * answer such a client). Offers that include {@code h2} or {@code http/1.1} are unchanged.
 */
class AlpnNegotiationTest {
  @TempDir Path dir;

  /** The client's view: the protocol ALPN agreed on ("" for none) and the answer's status line. */
  private record Outcome(String alpn, String status) {}

  private static Outcome get(LoopbackServer server, String... offered) throws IOException {
    int port = URI.create(server.base()).getPort();
    try (SSLSocket tls =
        (SSLSocket)
            SslContexts.trusting(server.certs().caFile())
                .getSocketFactory()
                .createSocket("127.0.0.1", port)) {
      SSLParameters parameters = tls.getSSLParameters();
      parameters.setApplicationProtocols(offered);
      tls.setSSLParameters(parameters);
      tls.setSoTimeout(5_000);
      tls.startHandshake();
      String alpn = tls.getApplicationProtocol();
      tls.getOutputStream()
          .write(
              "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.UTF_8));
      tls.getOutputStream().flush();
      return new Outcome(
          alpn, new String(tls.getInputStream().readNBytes(12), StandardCharsets.UTF_8));
    }
  }

  @Test
  void conscryptServesAClientOfUnknownProtocolsOverHttp1WithoutAlpn() throws Exception {
    LoopbackServer server = LoopbackServer.start(dir, TlsProvider.CONSCRYPT);
    try {
      assertThat(get(server, "http/1.0")).isEqualTo(new Outcome("", "HTTP/1.1 200"));
      assertThat(get(server, "foo", "spdy/3")).isEqualTo(new Outcome("", "HTTP/1.1 200"));
      assertThat(get(server, "foo", "http/1.1")).isEqualTo(new Outcome("http/1.1", "HTTP/1.1 200"));
      assertThat(get(server, "http/1.1", "h2").alpn()).isEqualTo("h2");
    } finally {
      server.server().stop();
    }
  }

  @Test
  void theJdksTlsRefusesTheHandshakeOfAClientOfUnknownProtocols() throws Exception {
    LoopbackServer server = LoopbackServer.start(dir, TlsProvider.JDK);
    try {
      assertThatThrownBy(() -> get(server, "http/1.0")).isInstanceOf(SSLHandshakeException.class);
      assertThat(get(server, "foo", "http/1.1")).isEqualTo(new Outcome("http/1.1", "HTTP/1.1 200"));
    } finally {
      server.server().stop();
    }
  }
}

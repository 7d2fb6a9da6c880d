package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsHandshakeTest {

  @Test
  void handshakeSucceedsWithCaAsTrustAndHostnameChecked(@TempDir Path dir) throws Exception {
    GenerateCerts.run(dir, "svc", "ns", Duration.ofDays(1));
    KeyStore ks = PemKeyStores.load(dir.resolve("tls.crt"), dir.resolve("tls.key"));
    assertThat(ks.isKeyEntry(PemKeyStores.KEY_ALIAS)).isTrue();

    SSLContext server = SslContexts.of(dir.resolve("tls.crt"), dir.resolve("tls.key"), null);
    SSLContext client = SslContexts.trusting(dir.resolve("ca.crt"));

    try (SSLServerSocket ss =
        (SSLServerSocket)
            server
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Integer> served =
          CompletableFuture.supplyAsync(
              () -> {
                try (SSLSocket s = (SSLSocket) ss.accept()) {
                  InputStream in = s.getInputStream();
                  int b = in.read();
                  s.getOutputStream().write(b + 1);
                  s.getOutputStream().flush();
                  return b;
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      try (SSLSocket c =
          (SSLSocket) client.getSocketFactory().createSocket("localhost", ss.getLocalPort())) {
        SSLParameters p = c.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        c.setSSLParameters(p);
        OutputStream out = c.getOutputStream();
        out.write(41);
        out.flush();
        assertThat(c.getInputStream().read()).isEqualTo(42);
        assertThat(c.getSession().getProtocol()).startsWith("TLSv1.");
      }
      assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(41);
    }
  }

  @Test
  void handshakeOnIpSanAndFailsWithForeignCa(@TempDir Path dir) throws Exception {
    GenerateCerts.run(dir.resolve("a"), "svc", "ns", Duration.ofDays(1));
    CertificateAuthority.generate("foreign", Duration.ofDays(1))
        .writeTo(dir.resolve("foreign.crt"), dir.resolve("foreign.key"));
    SSLContext server = SslContexts.of(dir.resolve("a/tls.crt"), dir.resolve("a/tls.key"), null);

    assertThat(handshake(server, SslContexts.trusting(dir.resolve("a/ca.crt")), "127.0.0.1"))
        .isNull();
    assertThat(handshake(server, SslContexts.trusting(dir.resolve("foreign.crt")), "127.0.0.1"))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void keyStoreRejectsMismatchedKey(@TempDir Path dir) {
    GenerateCerts.run(dir.resolve("a"), "svc", "ns", Duration.ofDays(1));
    GenerateCerts.run(dir.resolve("b"), "svc", "ns", Duration.ofDays(1));
    assertThatThrownBy(() -> PemKeyStores.load(dir.resolve("a/tls.crt"), dir.resolve("b/tls.key")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Runs one handshake; returns null on success or the client's exception. */
  private static Exception handshake(SSLContext server, SSLContext client, String host)
      throws Exception {
    try (SSLServerSocket ss =
        (SSLServerSocket)
            server
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Void> served =
          CompletableFuture.runAsync(
              () -> {
                try (SSLSocket s = (SSLSocket) ss.accept()) {
                  s.startHandshake();
                } catch (Exception ignored) {
                  // the client's side is what the test checks
                }
              });
      try (SSLSocket c =
          (SSLSocket) client.getSocketFactory().createSocket(host, ss.getLocalPort())) {
        SSLParameters p = c.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        c.setSSLParameters(p);
        c.startHandshake();
        return null;
      } catch (Exception e) {
        return e;
      } finally {
        served.get(10, TimeUnit.SECONDS);
      }
    }
  }
}

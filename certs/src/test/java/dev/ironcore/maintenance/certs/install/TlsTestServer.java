package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.IssuedCertificate;
import dev.ironcore.maintenance.certs.PemKeyStores;
import java.net.InetAddress;
import java.security.SecureRandom;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/** A TLS server on loopback presenting one serving pair to every connection, until closed. */
final class TlsTestServer implements AutoCloseable {
  final SSLServerSocket socket;
  final Thread loop;

  TlsTestServer(IssuedCertificate pair) throws Exception {
    this(pair.certificatePem(), pair.privateKeyPem(), 0);
  }

  /** On {@code port} (0: any free one). */
  TlsTestServer(String certificatePem, String privateKeyPem, int port) throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(
        PemKeyStores.fromPem(certificatePem, privateKeyPem, new char[0], "tls.crt", "tls.key"),
        new char[0]);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, new SecureRandom());
    socket =
        (SSLServerSocket)
            ctx.getServerSocketFactory()
                .createServerSocket(port, 5, InetAddress.getLoopbackAddress());
    loop =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try (SSLSocket s = (SSLSocket) socket.accept()) {
                  s.startHandshake();
                } catch (Exception ignored) {
                  // a refused handshake is the client's to report
                }
              }
            });
    loop.setDaemon(true);
    loop.start();
  }

  TrustSlot.Endpoint endpoint() {
    return new TrustSlot.Endpoint(
        0, "https://127.0.0.1:" + socket.getLocalPort() + "/validate", null, null, 443);
  }

  @Override
  public void close() throws Exception {
    socket.close();
    loop.join(5000);
  }
}

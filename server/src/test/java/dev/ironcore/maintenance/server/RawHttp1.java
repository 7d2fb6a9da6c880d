package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/1.1 request written by hand over TLS, for what HTTP clients do not send: a body shorter
 * than its Content-Length, or one sent in parts with pauses.
 */
final class RawHttp1 {
  private RawHttp1() {}

  /**
   * TLS over {@code plain}, an open TCP connection to the server on {@code port}, trusting the test
   * CA (10 s read timeout): the test can half-close the TCP side ({@code plain.shutdownOutput()}, a
   * FIN without TLS close_notify) as a client that leaves mid-request does. Closing the TLS socket
   * closes {@code plain}.
   */
  static SSLSocket over(java.net.Socket plain, TestCertificates certs, int port)
      throws IOException {
    SSLSocket socket =
        (SSLSocket)
            SslContexts.trusting(certs.caFile())
                .getSocketFactory()
                .createSocket(plain, "127.0.0.1", port, true);
    socket.setSoTimeout(10_000);
    return socket;
  }

  /**
   * Opens a connection (5 s read timeout) and writes a JSON POST's head with {@code Content-Length:
   * declared}, then {@code bodyStart}.
   *
   * @return the open connection, for the rest of the body and the answer (the caller closes it)
   */
  static SSLSocket post(
      TestCertificates certs, int port, String path, long declared, byte[] bodyStart)
      throws IOException {
    SSLSocket socket =
        (SSLSocket)
            SslContexts.trusting(certs.caFile()).getSocketFactory().createSocket("127.0.0.1", port);
    socket.setSoTimeout(5_000);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + declared
                + "\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
    out.write(bodyStart);
    out.flush();
    return socket;
  }
}

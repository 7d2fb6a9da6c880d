package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Hand-written HTTP/2 frames over TLS (ALPN {@code h2}), for requests no HTTP client sends: a body
 * that does not match its content-length. Headers are HPACK literals without indexing (RFC 7541
 * 6.2.2), no Huffman coding; the server's frames are not read.
 */
final class RawHttp2 {
  private RawHttp2() {}

  /**
   * Opens a connection and sends one POST on stream 1: HEADERS with {@code content-length:
   * declared}, then {@code body} in DATA frames, the last with END_STREAM.
   *
   * @return the open connection (the caller closes it)
   */
  static SSLSocket post(TestCertificates certs, int port, String path, long declared, byte[] body)
      throws IOException {
    SSLSocket socket =
        (SSLSocket)
            SslContexts.trusting(certs.caFile()).getSocketFactory().createSocket("127.0.0.1", port);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setApplicationProtocols(new String[] {"h2"});
    socket.setSSLParameters(parameters);
    socket.startHandshake();
    if (!"h2".equals(socket.getApplicationProtocol())) {
      socket.close();
      throw new IOException("the server did not choose h2: " + socket.getApplicationProtocol());
    }
    OutputStream out = socket.getOutputStream();
    out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    frame(out, 0x4, 0, 0, new byte[0]); // SETTINGS, none
    ByteArrayOutputStream headers = new ByteArrayOutputStream();
    literal(headers, ":method", "POST");
    literal(headers, ":scheme", "https");
    literal(headers, ":path", path);
    literal(headers, ":authority", "127.0.0.1:" + port);
    literal(headers, "content-type", "application/json");
    literal(headers, "content-length", Long.toString(declared));
    frame(out, 0x1, 0x4, 1, headers.toByteArray()); // HEADERS, END_HEADERS
    int max = 16_384;
    for (int from = 0; from < body.length; from += max) {
      int to = Math.min(body.length, from + max);
      frame(out, 0x0, to == body.length ? 0x1 : 0, 1, java.util.Arrays.copyOfRange(body, from, to));
    }
    if (body.length == 0) {
      frame(out, 0x0, 0x1, 1, new byte[0]);
    }
    out.flush();
    return socket;
  }

  private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload)
      throws IOException {
    int n = payload.length;
    out.write(
        new byte[] {(byte) (n >>> 16), (byte) (n >>> 8), (byte) n, (byte) type, (byte) flags});
    out.write(
        new byte[] {
          (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream
        });
    out.write(payload);
  }

  /** A literal header field without indexing, new name (first byte 0), lengths under 127. */
  private static void literal(ByteArrayOutputStream out, String name, String value) {
    out.write(0);
    for (String s : new String[] {name, value}) {
      byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
      if (bytes.length >= 127) {
        throw new IllegalArgumentException("too long for this encoder: " + s);
      }
      out.write(bytes.length);
      out.write(bytes, 0, bytes.length);
    }
  }
}

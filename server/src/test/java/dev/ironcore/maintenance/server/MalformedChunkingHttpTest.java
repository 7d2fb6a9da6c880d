package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chunked HTTP/1.1 body whose framing is broken (a chunk size that is no hex number, data longer
 * than its chunk) is answered 400 at once, while the client is still connected, with a message that
 * names broken framing among the causes (Jetty reports it as it reports a closed connection, "Early
 * EOF"): fresh eyes (session 46) were told "the client sent 0 bytes of the body, then closed the
 * connection or reset the stream". A body cut by the client's close gets the same answer.
 */
class MalformedChunkingHttpTest {
  @TempDir Path dir;

  @Test
  void brokenChunkFramingIsA400ThatSaysSo() throws Exception {
    LoopbackServer started = LoopbackServer.start(dir);
    try {
      int port = java.net.URI.create(started.base()).getPort();
      for (String chunks :
          List.of("ZZ\r\nabc\r\n0\r\n\r\n", "5\r\n{\"api\r\nQQ", "2\r\n{}XX0", "9\r\n{\"apiCUT")) {
        String answer = send(started, port, chunks);
        assertThat(answer)
            .as(chunks)
            .startsWith("HTTP/1.1 400 ")
            .contains(
                "request body incomplete: the client sent ",
                " bytes of the body, then the body ended before its last chunk or frame (the"
                    + " connection closed, the stream was reset, or the chunked framing was"
                    + " broken)");
      }
    } finally {
      started.server().stop();
    }
  }

  private static String send(LoopbackServer started, int port, String chunks) throws Exception {
    try (java.net.Socket plain = new java.net.Socket("127.0.0.1", port);
        javax.net.ssl.SSLSocket socket = RawHttp1.over(plain, started.certs(), port)) {
      var out = socket.getOutputStream();
      out.write(
          ("POST "
                  + AdmissionRoutes.CONVERT
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + "Transfer-Encoding: chunked\r\n\r\n"
                  + chunks)
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      if (chunks.endsWith("CUT")) {
        plain.shutdownOutput();
      }
      // the client stays connected: the answer must not wait for it to leave
      byte[] buffer = new byte[8192];
      StringBuilder answer = new StringBuilder();
      long deadline = System.nanoTime() + 8_000_000_000L;
      while (System.nanoTime() < deadline) {
        int n;
        try {
          n = socket.getInputStream().read(buffer);
        } catch (java.net.SocketTimeoutException e) {
          break;
        }
        if (n < 0) {
          break;
        }
        answer.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        if (answer.indexOf("\r\n\r\n") >= 0 && answer.toString().contains("chunked")) {
          break;
        }
      }
      return answer.toString();
    }
  }
}

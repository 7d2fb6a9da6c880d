package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.server.LoopbackServer;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that leaves without a TLS close_notify leaves no file descriptors behind: Conscrypt
 * keeps a pipe per native SSL object, freed only when the engine is closed (or, without {@link
 * HttpsConnectors.EngineRelease}, when a garbage collection finalizes it: a fresh-eyes check
 * counted 2,000 descriptors after 1,000 connections).
 */
class TlsConnectionReleaseTest {
  @TempDir Path dir;

  @Test
  void connectionsClosedWithoutCloseNotifyFreeTheirEnginesDescriptors() throws Exception {
    LoopbackServer started = LoopbackServer.start(dir, TlsProvider.CONSCRYPT);
    try {
      int port = URI.create(started.base()).getPort();
      var sockets =
          dev.ironcore.maintenance.certs.SslContexts.trusting(started.certs().caFile())
              .getSocketFactory();
      long before = pipes();
      for (int i = 0; i < 30; i++) {
        try (Socket plain = new Socket("127.0.0.1", port)) {
          SSLSocket tls = (SSLSocket) sockets.createSocket(plain, "127.0.0.1", port, false);
          tls.setSoTimeout(10_000);
          tls.getOutputStream()
              .write(
                  "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                      .getBytes(StandardCharsets.UTF_8));
          tls.getOutputStream().flush();
          assertThat(new String(tls.getInputStream().readNBytes(12), StandardCharsets.UTF_8))
              .isEqualTo("HTTP/1.1 200");
        } // the TCP connection closes under the TLS socket: no close_notify
      }
      // the server notices each close on its own thread: wait (bounded) for it to catch up
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (pipes() > before + 4 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(pipes()).as("pipes of 30 closed connections").isLessThanOrEqualTo(before + 4);
    } finally {
      started.server().stop();
    }
  }

  private static long pipes() throws Exception {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(
              fd -> {
                try {
                  return Files.readSymbolicLink(fd).toString().startsWith("pipe:");
                } catch (Exception e) {
                  return false; // closed meanwhile
                }
              })
          .count();
    }
  }
}

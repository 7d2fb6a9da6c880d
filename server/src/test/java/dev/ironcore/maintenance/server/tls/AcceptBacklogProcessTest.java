package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.testkit.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A burst of new connections while the server accepts none (its process stopped, as in a long pause
 * or on a starved CPU): each completes its TCP handshake in the kernel's accept queue and is served
 * once the server runs again. With Java's default listen backlog of 50 the kernel dropped the SYNs
 * past the 51st, which the clients then sent again only after 1 s, 3 s, 7 s (Go's listeners,
 * controller-runtime's webhook server's, take the kernel's {@code somaxconn}).
 */
class AcceptBacklogProcessTest {
  @TempDir Path dir;

  @Test
  void aBurstOfConnectionsToAStoppedServerIsQueuedNotDropped() throws Exception {
    int somaxconn;
    // Files.readString of a /proc/sys file returned only its first byte here ("4" of "4096")
    try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/core/somaxconn"))) {
      somaxconn = Integer.parseInt(in.readLine().trim());
    }
    int burst = Math.min(300, somaxconn - 10);
    assertThat(burst).as("net.core.somaxconn leaves room for a burst past 50").isGreaterThan(100);
    TestCertificates certs = TestCertificates.create(dir);
    int port = FreePorts.pick(1).get(0);
    Process server =
        TlsProviderProcessTest.serverProcess(certs, port, dir.resolve("server.log"), "auto")
            .start();
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(SslContexts.trusting(certs.caFile()))
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    List<SocketChannel> channels = new ArrayList<>();
    try {
      assertThat(healthz(client, port, 60)).as(log()).isEqualTo(200);
      signal(server, "STOP");
      int connected;
      try (Selector selector = Selector.open()) {
        for (int i = 0; i < burst; i++) {
          SocketChannel c = SocketChannel.open();
          channels.add(c);
          c.configureBlocking(false);
          if (!c.connect(new InetSocketAddress("127.0.0.1", port))) {
            c.register(selector, SelectionKey.OP_CONNECT);
          }
        }
        // a dropped SYN is sent again after 1 s: 800 ms see only the first handshakes
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
        while (System.nanoTime() < deadline) {
          selector.select(100);
          for (SelectionKey key : selector.selectedKeys()) {
            try {
              ((SocketChannel) key.channel()).finishConnect();
            } catch (IOException refused) {
              // counted as not connected below
            }
            key.cancel();
          }
          selector.selectedKeys().clear();
        }
        connected = (int) channels.stream().filter(SocketChannel::isConnected).count();
      }
      signal(server, "CONT");
      assertThat(connected).as(log()).isEqualTo(burst);
      for (SocketChannel c : channels) {
        c.close();
      }
      assertThat(healthz(client, port, 30)).as(log()).isEqualTo(200);
    } finally {
      signal(server, "CONT");
      for (SocketChannel c : channels) {
        c.close();
      }
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
      server.destroyForcibly();
    }
  }

  private static void signal(Process p, String signal) throws Exception {
    new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).start().waitFor();
  }

  private static int healthz(HttpClient client, int port, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> r =
            client.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/healthz"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    return -1;
  }

  private String log() throws IOException {
    return Files.readString(dir.resolve("server.log"));
  }
}

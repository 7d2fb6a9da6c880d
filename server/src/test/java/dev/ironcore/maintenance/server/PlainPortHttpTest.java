package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.server.http.PlainPort;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --health-probe-bind-address} and {@code --metrics-bind-address}: {@code /healthz} and
 * {@code /readyz}, and {@code /metrics}, over plain HTTP on ports of their own, answered while the
 * webhook port is full, and nothing else there.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PlainPortHttpTest {
  @TempDir Path dir;

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void probesAreAnsweredOnTheirOwnPortWhileTheWebhookPortIsFull() throws Exception {
    LoopbackServer started =
        LoopbackServer.start(
            dir,
            config ->
                config
                    .withMaxConnections(1)
                    .withMaxThreads(WebhookServerConfig.MIN_THREADS)
                    .withHealthProbeBindAddress("127.0.0.1:0"));
    WebhookServer server = started.server();
    try (Socket fillsTheWebhookPort = new Socket("127.0.0.1", server.port())) {
      int probes = server.healthProbePort();
      assertThat(probes).isPositive().isNotEqualTo(server.port());
      assertThat(get(probes, "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = get(probes, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).isEqualTo(get(probes, "/readyz/").body());
      for (String other : new String[] {"/metrics", "/convert", "/", "/healthzz"}) {
        HttpResponse<String> refused = get(probes, other);
        assertThat(refused.statusCode()).as(other).isEqualTo(404);
        assertThat(refused.body()).contains("this port serves /healthz and /readyz");
      }
      HttpResponse<String> review =
          client.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + probes + "/mutate/capi-machine"))
                  .timeout(Duration.ofSeconds(5))
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .header("Content-Type", "application/json")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(review.statusCode()).isEqualTo(404);
    } finally {
      server.stop();
    }
  }

  /**
   * The probe port takes at most {@link PlainPort#PROBES} (8): connections that fill it with
   * headers sent a byte at a time are closed at the limit, and a probe waiting behind them is
   * answered.
   */
  @Test
  void connectionsThatFillTheProbePortWithoutARequestAreClosed() throws Exception {
    LoopbackServer started =
        LoopbackServer.start(dir, config -> config.withHealthProbeBindAddress("127.0.0.1:0"));
    WebhookServer server = started.server();
    int probes = server.healthProbePort();
    List<Socket> slow = new ArrayList<>();
    ScheduledExecutorService trickling = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 0; i < PlainPort.PROBES.maxConnections(); i++) {
        Socket socket = new Socket("127.0.0.1", probes);
        socket.getOutputStream().write("GET /readyz HTTP/1.1\r\nHost: x\r\n".getBytes());
        slow.add(socket);
      }
      // a header byte every 500 ms: never idle
      trickling.scheduleAtFixedRate(
          () -> {
            for (Socket socket : slow) {
              try {
                socket.getOutputStream().write('X');
              } catch (IOException closed) {
                // closed by the server
              }
            }
          },
          0,
          500,
          TimeUnit.MILLISECONDS);
      HttpResponse<String> ready =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probes + "/readyz"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).isEqualTo(200);
      long closed = 0;
      for (Socket socket : slow) {
        socket.setSoTimeout(15_000);
        try {
          if (socket.getInputStream().read() == -1) {
            closed++;
          }
        } catch (IOException reset) {
          closed++;
        }
      }
      assertThat(closed).as("connections closed by the server").isPositive();
    } finally {
      trickling.shutdownNow();
      for (Socket socket : slow) {
        socket.close();
      }
      server.stop();
    }
  }

  /**
   * The probe port keeps listening when its limit is reached and lifted again and again while other
   * clients give up waiting (with Jetty accepting on the selector, the listening socket was closed
   * for good in about one of three such runs).
   */
  @Test
  void theProbePortKeepsListeningWhileItsLimitComesAndGoes() throws Exception {
    LoopbackServer started =
        LoopbackServer.start(dir, config -> config.withHealthProbeBindAddress("127.0.0.1:0"));
    WebhookServer server = started.server();
    int probes = server.healthProbePort();
    try {
      for (int round = 0; round < 30; round++) {
        List<Socket> full = new ArrayList<>();
        for (int i = 0; i < PlainPort.PROBES.maxConnections(); i++) {
          full.add(new Socket("127.0.0.1", probes));
        }
        // clients that wait behind the full port and give up
        for (int i = 0; i < 4; i++) {
          try (Socket gaveUp = new Socket("127.0.0.1", probes)) {
            gaveUp.getOutputStream().write("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
          }
        }
        for (Socket socket : full) {
          socket.close();
        }
      }
      assertThat(get(probes, "/readyz").statusCode()).isEqualTo(200);
    } finally {
      server.stop();
    }
  }

  @Test
  void zeroMeansNoProbePortAndNoMetricsPort() {
    LoopbackServer started = LoopbackServer.start(dir);
    try {
      assertThat(started.server().healthProbePort()).isEqualTo(-1);
      assertThat(started.server().metricsPort()).isEqualTo(-1);
    } finally {
      started.server().stop();
    }
  }

  /**
   * {@code --metrics-bind-address}: Prometheus scrapes over plain HTTP, with no CA, while the
   * webhook port is full, and only {@code /metrics} is there; probes and metrics can both have a
   * port.
   */
  @Test
  void metricsAreScrapedOnTheirOwnPortWhileTheWebhookPortIsFull() throws Exception {
    LoopbackServer started =
        LoopbackServer.start(
            dir,
            config ->
                config
                    .withMaxConnections(1)
                    .withHealthProbeBindAddress("127.0.0.1:0")
                    .withMetricsBindAddress("127.0.0.1:0"));
    WebhookServer server = started.server();
    try (Socket fillsTheWebhookPort = new Socket("127.0.0.1", server.port())) {
      int metrics = server.metricsPort();
      assertThat(metrics).isPositive().isNotIn(server.port(), server.healthProbePort());
      HttpResponse<String> scrape = get(metrics, "/metrics");
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("content-type"))
          .get()
          .asString()
          .contains("text/plain");
      assertThat(scrape.body())
          .contains("ironcore_maintenance_serving_certificate_expiry_seconds")
          .contains("jvm_memory_used_bytes");
      assertThat(get(metrics, "/metrics/").statusCode()).isEqualTo(200);
      for (String other : new String[] {"/healthz", "/readyz", "/convert", "/"}) {
        HttpResponse<String> refused = get(metrics, other);
        assertThat(refused.statusCode()).as(other).isEqualTo(404);
        assertThat(refused.body()).isEqualTo("not found (this port serves /metrics)\n");
      }
      assertThat(get(server.healthProbePort(), "/metrics").statusCode()).isEqualTo(404);
      assertThat(get(server.healthProbePort(), "/readyz").statusCode()).isEqualTo(200);
    } finally {
      server.stop();
    }
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

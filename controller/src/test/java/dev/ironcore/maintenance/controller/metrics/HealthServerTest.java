package dev.ironcore.maintenance.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The controller's probe and metrics listeners over real loopback HTTP. */
class HealthServerTest {
  private final HttpClient client = HttpClient.newHttpClient();

  private HttpResponse<String> send(int port, String method, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void probesAnswerGetAndHeadOnTheirPathsOnly() throws Exception {
    try (HealthServer probes =
        HealthServer.probes(
            new InetSocketAddress("127.0.0.1", 0), () -> false, () -> "caches not synced yet")) {
      int port = probes.port();
      assertThat(send(port, "GET", "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = send(port, "GET", "/readyz/");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).isEqualTo("caches not synced yet\n");
      HttpResponse<String> head = send(port, "HEAD", "/healthz");
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();

      HttpResponse<String> post = send(port, "POST", "/readyz");
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
      assertThat(send(port, "DELETE", "/healthz").statusCode()).isEqualTo(405);
      assertThat(send(port, "GET", "/readyzz").statusCode()).isEqualTo(404);
      assertThat(send(port, "GET", "/healthz/x").statusCode()).isEqualTo(404);
      assertThat(send(port, "GET", "/metrics").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void metricsAnswerGetOnItsPathOnly() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.counter("probe_test_total").increment();
    try (HealthServer metrics =
        HealthServer.metrics(new InetSocketAddress("127.0.0.1", 0), registry)) {
      int port = metrics.port();
      HttpResponse<String> scrape = send(port, "GET", "/metrics");
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.body()).contains("probe_test_total 1.0");
      assertThat(send(port, "POST", "/metrics").statusCode()).isEqualTo(405);
      assertThat(send(port, "GET", "/metricsz").statusCode()).isEqualTo(404);
      assertThat(send(port, "GET", "/readyz").statusCode()).isEqualTo(404);
    }
  }
}

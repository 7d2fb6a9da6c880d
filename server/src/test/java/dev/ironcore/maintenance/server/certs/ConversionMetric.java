package dev.ironcore.maintenance.server.certs;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.metrics.PrometheusText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/**
 * ConversionReview replies the webhook server counted, read from its {@code GET /metrics}: proof
 * that the API server's conversion calls reached this server (not another one).
 */
final class ConversionMetric {
  static final String NAME = "ironcore_maintenance_conversion_results_total";

  private ConversionMetric() {}

  /**
   * @param port the server's port on 127.0.0.1
   * @param caFile PEM of the CA that signed the pair the server presents now
   * @param result {@code success} or {@code failure}
   * @return {@value #NAME} of {@code /convert} with that result; 0 when not yet counted
   */
  static double count(int port, Path caFile, String result) throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(SslContexts.trusting(caFile))
            .connectTimeout(Duration.ofSeconds(20))
            .build();
    HttpResponse<String> r =
        client.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET /metrics: " + r.statusCode() + " " + r.body());
    }
    return PrometheusText.value(
            r.body(), NAME, "webhook", AdmissionRoutes.CONVERT, "result", result)
        .orElse(0.0);
  }
}

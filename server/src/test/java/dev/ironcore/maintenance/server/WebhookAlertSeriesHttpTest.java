package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.AlertSeries;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every series the webhook server's sample alerts ({@code
 * manifests/monitoring/prometheus_rule.yaml}, PrometheusRule {@code ironcore-maintenance-webhook})
 * select is in its {@code GET /metrics}: an alert on a renamed meter or a label that does not exist
 * would never fire. The failure counters exist from their first failure on (as the rule's comment
 * says), so one of each is sent first.
 */
class WebhookAlertSeriesHttpTest {
  @TempDir Path dir;

  @Test
  void everySeriesTheWebhookAlertsSelectIsExported() throws Exception {
    LoopbackServer started = LoopbackServer.start(dir);
    try {
      HttpClient client = started.client(HttpClient.Version.HTTP_1_1);
      // a ConversionReview and an AdmissionReview cut short: a failed conversion, an errored review
      for (String path : List.of(AdmissionRoutes.CONVERT, AdmissionRoutes.MUTATE_MACHINE)) {
        HttpResponse<String> reply =
            client.send(
                HttpRequest.newBuilder(URI.create(started.base() + path))
                    .timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"request\":{\"uid\":"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(path).isEqualTo(200);
      }
      List<AlertSeries.Selector> selectors = AlertSeries.of("ironcore-maintenance-webhook");
      assertThat(selectors)
          .extracting(AlertSeries.Selector::metric)
          .contains(
              "ironcore_maintenance_conversion_results_total",
              "ironcore_maintenance_serving_certificate_expiry_seconds");

      String metrics =
          client
              .send(
                  HttpRequest.newBuilder(URI.create(started.base() + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(selectors)
          .allSatisfy(s -> assertThat(s.matches(metrics)).as(s.toString()).isTrue());
    } finally {
      started.server().stop();
    }
  }
}

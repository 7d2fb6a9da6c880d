package dev.ironcore.maintenance.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.server.admission.AdmissionResponse.Decision;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WebhookMetricsTest {
  private static final String HOOK = "/mutate/capi-machine";

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final WebhookMetrics metrics = new WebhookMetrics(registry);

  private double inFlight(String webhook) {
    return registry
        .get("ironcore.maintenance.webhook.requests.in.flight")
        .tag("webhook", webhook)
        .gauge()
        .value();
  }

  private double requests(String webhook, String code) {
    return registry
        .get("ironcore.maintenance.webhook.requests")
        .tag("webhook", webhook)
        .tag("code", code)
        .counter()
        .count();
  }

  @Test
  void aRequestIsInFlightUntilAnsweredThenTimedAndCountedByCode() {
    WebhookMetrics.Request first = metrics.started(HOOK);
    WebhookMetrics.Request second = metrics.started(HOOK);
    assertThat(inFlight(HOOK)).isEqualTo(2);

    first.answered(200);
    second.answered(415);
    second.answered(500); // ignored: a request is answered once

    assertThat(inFlight(HOOK)).isZero();
    assertThat(requests(HOOK, "200")).isEqualTo(1);
    assertThat(requests(HOOK, "415")).isEqualTo(1);
    assertThat(registry.find("ironcore.maintenance.webhook.requests").tag("code", "500").counter())
        .isNull();
    assertThat(
            registry
                .get("ironcore.maintenance.webhook.request")
                .tag("webhook", HOOK)
                .timer()
                .count())
        .isEqualTo(2);
  }

  @Test
  void theTimerRecordsTheTimeFromStartedToAnswered() {
    MockClock clock = new MockClock();
    SimpleMeterRegistry timed = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
    WebhookMetrics.Request request = new WebhookMetrics(timed).started(HOOK);
    clock.add(Duration.ofMillis(30));
    request.answered(200);
    assertThat(
            timed
                .get("ironcore.maintenance.webhook.request")
                .timer()
                .totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(30);
  }

  @Test
  void webhooksAreCountedApart() {
    metrics.started(HOOK).answered(200);
    metrics.started("/validate/machine").answered(413);
    assertThat(requests(HOOK, "200")).isEqualTo(1);
    assertThat(requests("/validate/machine", "413")).isEqualTo(1);
    assertThat(
            registry
                .find("ironcore.maintenance.webhook.requests")
                .tag("webhook", HOOK)
                .tag("code", "413")
                .counter())
        .isNull();
  }

  @Test
  void decisionsAreCountedByLowerCaseLabel() {
    metrics.decided(HOOK, Decision.PATCHED);
    metrics.decided(HOOK, Decision.PATCHED);
    metrics.decided(HOOK, Decision.ERRORED);
    assertThat(
            registry
                .get("ironcore.maintenance.admission.decisions")
                .tag("webhook", HOOK)
                .tag("decision", "patched")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("ironcore.maintenance.admission.decisions")
                .tag("decision", "errored")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void certificateExpiryFollowsTheSuppliedCertificate() {
    AtomicReference<Instant> notAfter =
        new AtomicReference<>(Instant.ofEpochSecond(1_900_000_000L));
    metrics.servingCertificateExpiry(notAfter::get);
    assertThat(registry.get("ironcore.maintenance.serving.certificate.expiry").gauge().value())
        .isEqualTo(1_900_000_000d);
    notAfter.set(Instant.ofEpochSecond(2_000_000_000L));
    assertThat(registry.get("ironcore.maintenance.serving.certificate.expiry").gauge().value())
        .isEqualTo(2_000_000_000d);
  }

  @Test
  void prometheusShowsTheDocumentedNames() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WebhookMetrics exported = new WebhookMetrics(prometheus);
    exported.bindJvmMeters();
    exported.servingCertificateExpiry(() -> Instant.ofEpochSecond(1_900_000_000L));
    WebhookMetrics.Request open = exported.started(HOOK);
    exported.started(HOOK).answered(200);
    exported.decided(HOOK, Decision.ALLOWED);

    String text = prometheus.scrape();

    assertThat(
            PrometheusText.value(
                text,
                "ironcore_maintenance_webhook_requests_total",
                "webhook",
                HOOK,
                "code",
                "200"))
        .contains(1.0);
    assertThat(
            PrometheusText.value(
                text, "ironcore_maintenance_webhook_request_seconds_count", "webhook", HOOK))
        .contains(1.0);
    assertThat(
            PrometheusText.value(
                text,
                "ironcore_maintenance_webhook_request_seconds_bucket",
                "webhook",
                HOOK,
                "le",
                "0.005"))
        .isPresent();
    assertThat(
            PrometheusText.value(
                text,
                "ironcore_maintenance_webhook_request_seconds_bucket",
                "webhook",
                HOOK,
                "le",
                "+Inf"))
        .contains(1.0);
    assertThat(
            PrometheusText.value(
                text, "ironcore_maintenance_webhook_requests_in_flight", "webhook", HOOK))
        .contains(1.0);
    assertThat(
            PrometheusText.value(
                text,
                "ironcore_maintenance_admission_decisions_total",
                "webhook",
                HOOK,
                "decision",
                "allowed"))
        .contains(1.0);
    assertThat(
            PrometheusText.value(text, "ironcore_maintenance_serving_certificate_expiry_seconds"))
        .contains(1.9e9);
    assertThat(PrometheusText.value(text, "jvm_memory_used_bytes")).isPresent();
    assertThat(PrometheusText.value(text, "jvm_threads_live_threads")).isPresent();
    assertThat(PrometheusText.value(text, "system_cpu_count")).isPresent();
    open.answered(200);
    prometheus.close();
  }

  /** The budget's 503 and the body deadline's 408 count with the other answers, untimed. */
  @Test
  void answersBeforeTheEndpointRanAreCountedByStatusButNotTimed() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WebhookMetrics exported = new WebhookMetrics(prometheus);
    exported.started(HOOK).answered(200);
    exported.answeredEarly(HOOK, 503);
    exported.answeredEarly(HOOK, 503);
    exported.answeredEarly(HOOK, 408);
    String text = prometheus.scrape();
    assertThat(
            PrometheusText.value(
                text,
                "ironcore_maintenance_webhook_requests_total",
                "webhook",
                HOOK,
                "code",
                "503"))
        .contains(2.0);
    assertThat(
            PrometheusText.value(
                text,
                "ironcore_maintenance_webhook_requests_total",
                "webhook",
                HOOK,
                "code",
                "408"))
        .contains(1.0);
    assertThat(
            PrometheusText.value(
                text, "ironcore_maintenance_webhook_request_seconds_count", "webhook", HOOK))
        .contains(1.0);
  }
}

package dev.ironcore.maintenance.server.metrics;

import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The webhook server's Micrometer meters, exported for Prometheus at {@code GET /metrics}. Names as
 * Prometheus shows them ({@code webhook} is the admission path, e.g. {@code /mutate/capi-machine}):
 *
 * <ul>
 *   <li>{@code ironcore_maintenance_webhook_requests_total{webhook,code}}: HTTP answers by status
 *       code, including 413 (body too large) and 415 (not {@code application/json});
 *   <li>{@code ironcore_maintenance_webhook_request_seconds{webhook}}: time to answer once the body
 *       is in hand (the client's upload is not counted), with histogram buckets from 5 ms to 10 s
 *       ({@code _bucket}, {@code _count}, {@code _sum}, {@code _max});
 *   <li>{@code ironcore_maintenance_webhook_requests_in_flight{webhook}}: requests being answered
 *       (a request whose body is still arriving is not counted);
 *   <li>{@code ironcore_maintenance_admission_decisions_total{webhook,decision}}: replies by {@link
 *       AdmissionResponse.Decision}: {@code allowed}, {@code patched}, {@code denied} or {@code
 *       errored} (malformed reviews and handler failures; 413/415 carry no decision);
 *   <li>{@code ironcore_maintenance_conversion_results_total{webhook,result}}: ConversionReview
 *       replies by result, {@code success} or {@code failure} (413/415 carry no result);
 *   <li>{@code ironcore_maintenance_serving_certificate_expiry_seconds}: Unix time of the served
 *       certificate's notAfter (follows reloads);
 *   <li>{@code ironcore_maintenance_serving_certificate_expiring}: 1 while the served certificate
 *       expires within the warning window (default 30 days, {@code --certificate-expiry-warning}),
 *       else 0; {@code ironcore_maintenance_serving_certificate_expiry_warning_seconds} is that
 *       window;
 *   <li>{@code ironcore_maintenance_webhook_connection_limit_reached_total}: how often the open
 *       connections rose to the limit ({@code --max-connections}); after {@link #connections} also
 *       {@code ironcore_maintenance_webhook_connections} (open TCP connections) and {@code
 *       ironcore_maintenance_webhook_connections_max} (the limit);
 *   <li>{@code ironcore_maintenance_webhook_connections_closed_without_request_total}: connections
 *       closed at the limit because they had no request in flight for 5 s (whatever bytes they
 *       sent);
 *   <li>after {@link #bindJvmMeters()}: Micrometer's JVM memory, thread and processor meters
 *       ({@code jvm_memory_used_bytes}, {@code jvm_threads_live_threads}, {@code system_cpu_count},
 *       ...).
 * </ul>
 *
 * Thread-safe.
 */
public final class WebhookMetrics {
  /**
   * Histogram bucket bounds of the request timer (those of controller-runtime's webhook latency).
   */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private final MeterRegistry registry;
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

  /**
   * Meters already registered, by name and tag values: registering through a builder on every
   * request (a registry look-up with a fresh Meter.Id) was about 4% of the server's CPU at
   * saturation ({@code make bench}). The key space is bounded: webhook paths are fixed, decisions
   * and status codes few.
   */
  private final Map<List<String>, Meter> meters = new ConcurrentHashMap<>();

  private final Counter connectionLimitReached;
  private final Counter connectionsClosedWithoutRequest;

  /**
   * @param registry where the meters are registered, e.g. a Prometheus registry
   */
  public WebhookMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.connectionLimitReached =
        Counter.builder("ironcore.maintenance.webhook.connection.limit.reached")
            .description(
                "How often the webhook server's open connections rose to --max-connections (new"
                    + " connections then wait in the kernel's accept queue)")
            .register(registry);
    this.connectionsClosedWithoutRequest =
        Counter.builder("ironcore.maintenance.webhook.connections.closed.without.request")
            .description(
                "Connections the webhook server closed at --max-connections because they had no"
                    + " request in flight for 5 s, whatever bytes they sent")
            .register(registry);
  }

  /** Adds Micrometer's JVM memory, thread and processor meters to the registry. */
  public void bindJvmMeters() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
  }

  /**
   * Counts a request to {@code webhook} as in flight and starts its timer.
   *
   * @param webhook the admission path
   * @return the request, to be {@linkplain Request#answered(int) answered} exactly once
   */
  public Request started(String webhook) {
    AtomicInteger gauge =
        inFlight.computeIfAbsent(
            webhook,
            w -> {
              AtomicInteger value = new AtomicInteger();
              Gauge.builder(
                      "ironcore.maintenance.webhook.requests.in.flight", value, AtomicInteger::get)
                  .description("Admission requests being answered")
                  .tag("webhook", w)
                  .register(registry);
              return value;
            });
    gauge.incrementAndGet();
    return new Request(webhook, gauge, registry.config().clock().monotonicTime());
  }

  /**
   * Counts one reply of {@code webhook} by its decision.
   *
   * @param webhook the admission path
   * @param decision what the reply said
   */
  public void decided(String webhook, AdmissionResponse.Decision decision) {
    counter(
            "ironcore.maintenance.admission.decisions",
            "Admission replies by decision",
            "webhook",
            webhook,
            "decision",
            decision.label())
        .increment();
  }

  /**
   * Counts one ConversionReview reply of {@code webhook} by its result.
   *
   * @param webhook the conversion path
   * @param succeeded true for {@code result.status: Success}, false for Failure
   */
  public void converted(String webhook, boolean succeeded) {
    counter(
            "ironcore.maintenance.conversion.results",
            "ConversionReview replies by result",
            "webhook",
            webhook,
            "result",
            succeeded ? "success" : "failure")
        .increment();
  }

  /** The counter {@code name} with the two tags, registered on first use. */
  private Counter counter(
      String name, String description, String tag1, String value1, String tag2, String value2) {
    return (Counter)
        meters.computeIfAbsent(
            List.of(name, value1, value2),
            k ->
                Counter.builder(name)
                    .description(description)
                    .tag(tag1, value1)
                    .tag(tag2, value2)
                    .register(registry));
  }

  /** The request timer of {@code webhook}, registered on first use. */
  private Timer requestTimer(String webhook) {
    return (Timer)
        meters.computeIfAbsent(
            List.of("ironcore.maintenance.webhook.request", webhook),
            k ->
                Timer.builder("ironcore.maintenance.webhook.request")
                    .description("Time to answer an admission request")
                    .tag("webhook", webhook)
                    .serviceLevelObjectives(BUCKETS)
                    .register(registry));
  }

  /**
   * Exposes the served certificate's expiry; the supplier is asked at every scrape.
   *
   * @param notAfter the notAfter of the certificate currently served
   */
  public void servingCertificateExpiry(Supplier<Instant> notAfter) {
    Objects.requireNonNull(notAfter, "notAfter");
    Gauge.builder(
            "ironcore.maintenance.serving.certificate.expiry",
            () -> notAfter.get().getEpochSecond())
        .description("Unix time at which the serving certificate expires (notAfter)")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  /**
   * Exposes whether the served certificate expires within the warning window; asked at every
   * scrape.
   *
   * @param expiresSoon true while the certificate expires within {@code window}
   * @param window the warning window
   */
  public void servingCertificateExpiresSoon(BooleanSupplier expiresSoon, Duration window) {
    Objects.requireNonNull(expiresSoon, "expiresSoon");
    Gauge.builder(
            "ironcore.maintenance.serving.certificate.expiring",
            () -> expiresSoon.getAsBoolean() ? 1 : 0)
        .description(
            "1 while the serving certificate expires within the warning window, otherwise 0")
        .strongReference(true)
        .register(registry);
    Gauge.builder("ironcore.maintenance.serving.certificate.expiry.warning", window::toSeconds)
        .description("Warning window before the serving certificate's expiry")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  /**
   * Exposes whether the certificate files currently fail to load (the previous certificate is still
   * served); asked at every scrape.
   *
   * @param failing true while the last reload of the PEM files failed
   */
  public void servingCertificateReloadFailing(BooleanSupplier failing) {
    Objects.requireNonNull(failing, "failing");
    Gauge.builder(
            "ironcore.maintenance.serving.certificate.reload.failing",
            () -> failing.getAsBoolean() ? 1 : 0)
        .description(
            "1 while the certificate files do not hold a usable pair and the previous certificate"
                + " is still served, otherwise 0")
        .strongReference(true)
        .register(registry);
  }

  /**
   * Exposes the connector's open connections and its limit (asked at every scrape).
   *
   * @param open open TCP connections now
   * @param max the most that may be open ({@code --max-connections})
   */
  public void connections(IntSupplier open, int max) {
    Objects.requireNonNull(open, "open");
    Gauge.builder("ironcore.maintenance.webhook.connections", open::getAsInt)
        .description("Open TCP connections of the webhook server")
        .strongReference(true)
        .register(registry);
    Gauge.builder("ironcore.maintenance.webhook.connections.max", () -> max)
        .description("Most open TCP connections the webhook server accepts (--max-connections)")
        .strongReference(true)
        .register(registry);
  }

  /** Counts that the open connections rose to {@code --max-connections}. */
  public void connectionLimitReached() {
    connectionLimitReached.increment();
  }

  /** Counts a connection closed at {@code --max-connections} for making no request. */
  public void connectionClosedWithoutRequest() {
    connectionsClosedWithoutRequest.increment();
  }

  /**
   * Counts a request that was answered before its endpoint ran (503: no room in the request-body
   * budget within its wait; 408: its body did not arrive within the deadline) in {@code
   * ironcore_maintenance_webhook_requests_total{webhook,code}}, as {@link Request#answered(int)}
   * counts the others; not timed (nothing of it was answered by the webhook).
   *
   * @param webhook the registered path
   * @param status the HTTP status code sent
   */
  public void answeredEarly(String webhook, int status) {
    countStatus(webhook, status);
  }

  private void countStatus(String webhook, int status) {
    counter(
            "ironcore.maintenance.webhook.requests",
            "Admission requests by HTTP status code",
            "webhook",
            webhook,
            "code",
            Integer.toString(status))
        .increment();
  }

  /** One request in flight; see {@link #started(String)}. */
  public final class Request {
    private final String webhook;
    private final AtomicInteger gauge;
    private final long startNanos;
    private final AtomicBoolean done = new AtomicBoolean();

    private Request(String webhook, AtomicInteger gauge, long startNanos) {
      this.webhook = webhook;
      this.gauge = gauge;
      this.startNanos = startNanos;
    }

    /**
     * Records the answer: stops the timer, counts the status code, leaves the in-flight gauge.
     * Later calls do nothing.
     *
     * @param status the HTTP status code sent
     */
    public void answered(int status) {
      if (!done.compareAndSet(false, true)) {
        return;
      }
      // Read the clock before touching the registry: registering a meter is not the request's time.
      long elapsedNanos = registry.config().clock().monotonicTime() - startNanos;
      gauge.decrementAndGet();
      requestTimer(webhook).record(elapsedNanos, TimeUnit.NANOSECONDS);
      countStatus(webhook, status);
    }
  }
}

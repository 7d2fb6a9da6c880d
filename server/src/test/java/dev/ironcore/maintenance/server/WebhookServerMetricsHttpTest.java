package dev.ironcore.maintenance.server;

import static dev.ironcore.maintenance.server.metrics.PrometheusText.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import dev.ironcore.maintenance.server.http.AdmissionEndpoint;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of the real HTTPS server on a free port: what was answered shows up in the
 * counters with its labels. A server of its own, so the counts are exact.
 */
class WebhookServerMetricsHttpTest {
  private static final String REQUESTS = "ironcore_maintenance_webhook_requests_total";
  private static final String DECISIONS = "ironcore_maintenance_admission_decisions_total";

  @TempDir static Path dir;
  static TestCertificates certs;
  static WebhookServer server;
  static String base;
  static HttpClient client;

  @BeforeAll
  static void start() {
    LoopbackServer started = LoopbackServer.start(dir);
    certs = started.certs();
    server = started.server();
    base = started.base();
    client = started.client(HttpClient.Version.HTTP_1_1);
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  private static int post(String path, String contentType, HttpRequest.BodyPublisher body)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", contentType)
            .POST(body)
            .build();
    return client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private static int post(String path, String contentType, String body) throws Exception {
    return post(path, contentType, HttpRequest.BodyPublishers.ofString(body));
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void countsAnswersByCodeAndRepliesByDecision() throws Exception {
    String capi =
        TestReviews.review(
                "u-1",
                Names.CAPI_GROUP,
                "v1beta2",
                "Machine",
                "machines",
                Operation.CREATE,
                TestReviews.json("{'metadata':{'name':'m','namespace':'ns'}}"),
                null)
            .toString();
    String badTaint =
        TestReviews.review(
                "u-2",
                "compute.ironcore.dev",
                "v1alpha1",
                "MachinePool",
                "machinepools",
                Operation.CREATE,
                TestReviews.json("{'metadata':{'name':'p'},'spec':{'taints':[{'key':'k'}]}}"),
                null)
            .toString();
    byte[] tooLarge = new byte[(int) AdmissionEndpoint.MAX_BODY_BYTES + 1];

    assertThat(post(AdmissionRoutes.MUTATE_CAPI_MACHINE, "application/json", capi)).isEqualTo(200);
    assertThat(post(AdmissionRoutes.MUTATE_CAPI_MACHINE, "application/json", capi)).isEqualTo(200);
    assertThat(post(AdmissionRoutes.VALIDATE_MACHINEPOOL, "application/json", badTaint))
        .isEqualTo(200);
    assertThat(post(AdmissionRoutes.MUTATE_MACHINE, "application/json", "{\"request\":"))
        .isEqualTo(200);
    assertThat(post(AdmissionRoutes.VALIDATE_MACHINE, "text/plain", capi)).isEqualTo(415);
    assertThat(
            post(
                AdmissionRoutes.VALIDATE_MACHINE,
                "application/json",
                HttpRequest.BodyPublishers.ofByteArray(tooLarge)))
        .isEqualTo(413);
    assertThat(get("/healthz").statusCode()).isEqualTo(200);

    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain").contains("version=0.0.4"));
    String text = metrics.body();

    assertThat(value(text, REQUESTS, "webhook", "/mutate/capi-machine", "code", "200"))
        .contains(2.0);
    assertThat(value(text, REQUESTS, "webhook", "/validate/machinepool", "code", "200"))
        .contains(1.0);
    assertThat(value(text, REQUESTS, "webhook", "/mutate/machine", "code", "200")).contains(1.0);
    assertThat(value(text, REQUESTS, "webhook", "/validate/machine", "code", "415")).contains(1.0);
    assertThat(value(text, REQUESTS, "webhook", "/validate/machine", "code", "413")).contains(1.0);
    assertThat(value(text, REQUESTS, "webhook", "/validate/machine", "code", "200")).isEmpty();
    assertThat(value(text, REQUESTS, "webhook", "/healthz"))
        .as("probes are not webhooks")
        .isEmpty();

    assertThat(value(text, DECISIONS, "webhook", "/mutate/capi-machine", "decision", "patched"))
        .contains(2.0);
    assertThat(value(text, DECISIONS, "webhook", "/validate/machinepool", "decision", "denied"))
        .contains(1.0);
    assertThat(value(text, DECISIONS, "webhook", "/mutate/machine", "decision", "errored"))
        .contains(1.0);
    assertThat(value(text, DECISIONS, "webhook", "/validate/machine"))
        .as("413/415 carry no decision")
        .isEmpty();

    assertThat(
            value(
                text,
                "ironcore_maintenance_webhook_request_seconds_count",
                "webhook",
                "/mutate/capi-machine"))
        .contains(2.0);
    assertThat(
            value(
                text,
                "ironcore_maintenance_webhook_request_seconds_count",
                "webhook",
                "/validate/machine"))
        .contains(2.0);
    assertThat(
            value(
                text,
                "ironcore_maintenance_webhook_request_seconds_bucket",
                "webhook",
                "/mutate/capi-machine",
                "le",
                "+Inf"))
        .contains(2.0);
    assertThat(
            value(
                text,
                "ironcore_maintenance_webhook_requests_in_flight",
                "webhook",
                "/mutate/capi-machine"))
        .contains(0.0);
  }

  /**
   * A refused request (415, 404) whose body is still on its way: the server reads it before
   * answering, so the keep-alive connection stays usable for the client's next request (before,
   * Jetty closed it after answering, and a client that reused it got no bytes: seen once in make
   * test).
   */
  @Test
  void aRefusedRequestsLateBodyIsReadAndTheConnectionStaysUsable() throws Exception {
    refusedWithALateBody(
        "POST " + AdmissionRoutes.CONVERT, "text/yaml", "HTTP/1.1 415 Unsupported Media Type");
    refusedWithALateBody("POST /no-such-path", "application/json", "HTTP/1.1 404 Not Found");
  }

  private static void refusedWithALateBody(String requestLine, String contentType, String status)
      throws Exception {
    javax.net.ssl.SSLSocketFactory sockets =
        dev.ironcore.maintenance.certs.SslContexts.trusting(certs.caFile()).getSocketFactory();
    int port = java.net.URI.create(base).getPort();
    String body = "{\"kind\":\"ConversionReview\"}\n";
    try (javax.net.ssl.SSLSocket socket =
        (javax.net.ssl.SSLSocket) sockets.createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      var out = socket.getOutputStream();
      var in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      out.write(
          (requestLine
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                  + contentType
                  + "\r\nContent-Length: "
                  + body.length()
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      Thread.sleep(300); // the body comes later than the headers
      out.write(body.getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(in.readLine()).as(requestLine).isEqualTo(status);
      skipResponse(in);
      out.write(
          "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(in.readLine())
          .as("the next request on the connection of " + requestLine)
          .isEqualTo("HTTP/1.1 200 OK");
    }
  }

  /**
   * A client that closes its side (TCP FIN, no TLS close_notify) before its body is complete gets a
   * 400 saying so, not Jetty's 500 page (found by a fresh-eyes check: counted as a server error,
   * logged as an ERROR with a stack trace).
   */
  @Test
  void aBodyCutShortIsA400NotA500() throws Exception {
    int port = java.net.URI.create(base).getPort();
    String body = "{\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-short\"";
    try (java.net.Socket plain = new java.net.Socket("127.0.0.1", port);
        javax.net.ssl.SSLSocket socket = RawHttp1.over(plain, certs, port)) {
      var out = socket.getOutputStream();
      out.write(
          ("POST "
                  + AdmissionRoutes.MUTATE_MACHINEPOOL
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + "Content-Length: "
                  + (body.length() + 100)
                  + "\r\n\r\n"
                  + body)
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      plain.shutdownOutput();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer)
          .startsWith("HTTP/1.1 400 Bad Request")
          .contains("request body incomplete: the client sent " + body.length() + " of ")
          .doesNotContain("500");
    }
    String text = get("/metrics").body();
    assertThat(value(text, REQUESTS, "webhook", "/mutate/machinepool", "code", "400"))
        .contains(1.0);
    assertThat(value(text, REQUESTS, "webhook", "/mutate/machinepool", "code", "500"))
        .as("a client that left is not a server error")
        .isEmpty();
  }

  /**
   * A Content-Length over the limit is refused at once, not after the body or Jetty's idle timeout
   * (a client that waits for an answer before sending more waited 30 s).
   */
  @Test
  void aDeclaredLengthOverTheLimitIsRefusedAtOnce() throws Exception {
    int port = java.net.URI.create(base).getPort();
    try (javax.net.ssl.SSLSocket socket =
        RawHttp1.post(
            certs,
            port,
            AdmissionRoutes.MUTATE_MACHINEPOOL,
            99_999_999_999L,
            "{\"kind\":".getBytes(StandardCharsets.UTF_8))) {
      var in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("HTTP/1.1 413 Payload Too Large");
    }
  }

  /**
   * A Content-Length over the limit but within what the server reads after refusing (16 MiB) is
   * refused at once too, and what the client sends after the 413 is read, so the connection stays
   * usable (the server used to read the whole body before answering: a client that declared more
   * than it sent waited for the 30 s idle timeout).
   */
  @Test
  void aDeclaredLengthOverTheLimitIsRefusedAtOnceAndTheRestIsRead() throws Exception {
    int port = java.net.URI.create(base).getPort();
    int declared = 8 * 1024 * 1024;
    byte[] part = new byte[1024];
    java.util.Arrays.fill(part, (byte) ' ');
    try (javax.net.ssl.SSLSocket socket =
        RawHttp1.post(certs, port, AdmissionRoutes.MUTATE_MACHINEPOOL, declared, part)) {
      var out = socket.getOutputStream();
      var in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("HTTP/1.1 413 Payload Too Large");
      skipResponse(in);
      byte[] rest = new byte[64 * 1024];
      java.util.Arrays.fill(rest, (byte) ' ');
      for (int sent = part.length; sent < declared; sent += rest.length) {
        out.write(rest, 0, Math.min(rest.length, declared - sent));
      }
      out.write(
          "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(in.readLine())
          .as("the next request on the same connection")
          .isEqualTo("HTTP/1.1 200 OK");
    }
  }

  /** An unknown path is answered at once, before its body came (it waited for the body). */
  @Test
  void anUnknownPathIsAnsweredBeforeItsBody() throws Exception {
    int port = java.net.URI.create(base).getPort();
    try (javax.net.ssl.SSLSocket socket =
        RawHttp1.post(certs, port, "/no-such-path", 5_000, "{}".getBytes(StandardCharsets.UTF_8))) {
      var in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("HTTP/1.1 404 Not Found");
    }
  }

  /** Reads one HTTP/1.1 response's headers and its Content-Length body. */
  private static void skipResponse(java.io.BufferedReader in) throws java.io.IOException {
    int length = 0;
    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    for (int i = 0; i < length; i++) {
      in.read();
    }
  }

  @Test
  void conversionPathHasTheSameEdgeAndMeters() throws Exception {
    String ok =
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\",\"request\":"
            + "{\"uid\":\"c-1\",\"desiredAPIVersion\":\"compute.ironcore.dev/v1alpha1\","
            + "\"objects\":[{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\"}]}}";
    HttpResponse<String> reply =
        client.send(
            HttpRequest.newBuilder(URI.create(base + AdmissionRoutes.CONVERT))
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(ok))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(reply.statusCode()).isEqualTo(200);
    assertThat(reply.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(reply.body())
        .contains("\"uid\":\"c-1\"")
        .contains("\"status\":\"Success\"")
        .contains("\"apiVersion\":\"compute.ironcore.dev/v1alpha1\"");
    assertThat(post(AdmissionRoutes.CONVERT, "application/json", "{\"request\":{\"uid\":"))
        .isEqualTo(200);
    assertThat(post(AdmissionRoutes.CONVERT, "text/yaml", ok)).isEqualTo(415);
    byte[] tooLarge = new byte[(int) AdmissionEndpoint.MAX_BODY_BYTES + 1];
    assertThat(
            post(
                AdmissionRoutes.CONVERT,
                "application/json",
                HttpRequest.BodyPublishers.ofByteArray(tooLarge)))
        .isEqualTo(413);

    String text = get("/metrics").body();
    assertThat(value(text, REQUESTS, "webhook", "/convert", "code", "200")).contains(2.0);
    assertThat(value(text, REQUESTS, "webhook", "/convert", "code", "415")).contains(1.0);
    assertThat(value(text, REQUESTS, "webhook", "/convert", "code", "413")).contains(1.0);
    String results = "ironcore_maintenance_conversion_results_total";
    assertThat(value(text, results, "webhook", "/convert", "result", "success")).contains(1.0);
    assertThat(value(text, results, "webhook", "/convert", "result", "failure")).contains(1.0);
    assertThat(
            value(
                text, "ironcore_maintenance_webhook_request_seconds_count", "webhook", "/convert"))
        .contains(4.0);
  }

  @Test
  void exposesJvmMetersAndTheCertificateExpiry() throws Exception {
    String text = get("/metrics").body();
    long notAfter = server.certificate().current().getNotAfter().toInstant().getEpochSecond();
    assertThat(value(text, "ironcore_maintenance_serving_certificate_expiry_seconds"))
        .contains((double) notAfter);
    assertThat(value(text, "jvm_memory_used_bytes", "area", "heap")).isPresent();
    assertThat(value(text, "jvm_threads_live_threads")).isPresent();
    assertThat(value(text, "system_cpu_count")).isPresent();
  }
}

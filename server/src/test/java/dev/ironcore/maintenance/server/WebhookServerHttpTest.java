package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import dev.ironcore.maintenance.server.http.AdmissionEndpoint;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real HTTPS server on a free port, spoken to with the JDK client over h2 and http/1.1. */
class WebhookServerHttpTest {
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  @TempDir static Path dir;
  static TestCertificates certs;
  static WebhookServer server;
  static String base;

  @BeforeAll
  static void start() {
    LoopbackServer started = LoopbackServer.start(dir);
    certs = started.certs();
    server = started.server();
    base = started.base();
    assertThat(base).matches("https://127\\.0\\.0\\.1:[1-9][0-9]*");
  }

  @AfterAll
  static void stop() {
    server.stop();
    server.stop();
  }

  private static HttpClient client(HttpClient.Version version) {
    return HttpClient.newBuilder()
        .version(version)
        .sslContext(SslContexts.trusting(certs.caFile()))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static HttpResponse<String> post(
      HttpClient.Version version, String path, String contentType, HttpRequest.BodyPublisher body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20)).POST(body);
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    return client(version).send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String capiCreateReview(String uid) {
    return TestReviews.review(
            uid,
            Names.CAPI_GROUP,
            "v1beta2",
            "Machine",
            "machines",
            Operation.CREATE,
            TestReviews.json("{'metadata':{'name':'m','namespace':'ns'}}"),
            null)
        .toString();
  }

  @Test
  void negotiatesH2AndHttp11AndMutates() throws Exception {
    for (HttpClient.Version version : HttpClient.Version.values()) {
      HttpResponse<String> response =
          post(
              version,
              AdmissionRoutes.MUTATE_CAPI_MACHINE,
              "application/json",
              HttpRequest.BodyPublishers.ofString(capiCreateReview("uid-" + version)));
      assertThat(response.version()).isEqualTo(version);
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
      JsonNode reply = MAPPER.readTree(response.body());
      assertThat(reply.at("/response/uid").asText()).isEqualTo("uid-" + version);
      assertThat(reply.at("/response/allowed").asBoolean()).isTrue();
      String patch =
          new String(
              Base64.getDecoder().decode(reply.at("/response/patch").asText()),
              StandardCharsets.UTF_8);
      assertThat(patch).contains(Names.CLEANUP_FINALIZER);
    }
  }

  @Test
  void everyAdmissionPathAnswers() throws Exception {
    for (String path : AdmissionRoutes.create(l -> true).keySet()) {
      HttpResponse<String> response =
          post(
              HttpClient.Version.HTTP_2,
              path,
              "application/json",
              HttpRequest.BodyPublishers.ofString(capiCreateReview("u")));
      assertThat(response.statusCode()).as(path).isEqualTo(200);
      JsonNode reply = MAPPER.readTree(response.body());
      assertThat(reply.at("/response/uid").asText()).as(path).isEqualTo("u");
      // a CAPI Machine review: judged on its own path, refused with the kinds named elsewhere
      boolean own = path.equals(AdmissionRoutes.MUTATE_CAPI_MACHINE);
      assertThat(reply.at("/response/allowed").asBoolean()).as(path).isEqualTo(own);
      if (!own) {
        assertThat(reply.at("/response/status/message").asText())
            .as(path)
            .startsWith(path + " judges ")
            .contains(" only, got Machine.cluster.x-k8s.io: ");
      }
    }
  }

  @Test
  void malformedJsonGetsA200ReviewWithTheUid() throws Exception {
    String cut = capiCreateReview("uid-cut");
    cut = cut.substring(0, cut.indexOf("\"object\"") + 12);
    HttpResponse<String> response =
        post(
            HttpClient.Version.HTTP_1_1,
            AdmissionRoutes.MUTATE_MACHINE,
            "application/json",
            HttpRequest.BodyPublishers.ofString(cut));
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode reply = MAPPER.readTree(response.body());
    assertThat(reply.get("kind").asText()).isEqualTo("AdmissionReview");
    assertThat(reply.at("/response/uid").asText()).isEqualTo("uid-cut");
    assertThat(reply.at("/response/allowed").asBoolean()).isFalse();
    assertThat(reply.at("/response/status/message").asText()).contains("not valid JSON");
  }

  @Test
  void wrongOrMissingContentTypeIs415() throws Exception {
    HttpResponse<String> wrong =
        post(
            HttpClient.Version.HTTP_2,
            AdmissionRoutes.VALIDATE_MACHINE,
            "text/plain",
            HttpRequest.BodyPublishers.ofString(capiCreateReview("u")));
    assertThat(wrong.statusCode()).isEqualTo(415);
    assertThat(wrong.body()).contains("application/json", "text/plain");
    HttpResponse<String> missing =
        post(
            HttpClient.Version.HTTP_1_1,
            AdmissionRoutes.VALIDATE_MACHINE,
            null,
            HttpRequest.BodyPublishers.ofString(capiCreateReview("u")));
    assertThat(missing.statusCode()).isEqualTo(415);
  }

  /**
   * Fresh eyes (session 42): a gzip body was read as JSON and answered "not valid JSON: Illegal
   * character ((CTRL-CHAR, code 31))" with an empty uid; kube-apiserver never compresses reviews.
   */
  @Test
  void aCompressedBodyIs415() throws Exception {
    java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
    try (var out = new java.util.zip.GZIPOutputStream(gz)) {
      out.write(capiCreateReview("u").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    byte[] plain = capiCreateReview("u").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (HttpClient.Version version : HttpClient.Version.values()) {
      HttpResponse<String> gzip = encoded(version, gz.toByteArray(), "gzip");
      assertThat(gzip.statusCode()).as(version.name()).isEqualTo(415);
      assertThat(gzip.body())
          .isEqualTo(
              "Content-Encoding \"gzip\" is not supported: send the review uncompressed (as"
                  + " kube-apiserver does)\n");
      HttpResponse<String> identity = encoded(version, plain, "identity");
      assertThat(identity.statusCode()).as(version.name()).isEqualTo(200);
      assertThat(identity.body()).contains("\"uid\":\"u\"");
      // a second field that names gzip is refused too
      HttpResponse<String> second = encoded(version, gz.toByteArray(), "identity", "gzip");
      assertThat(second.statusCode()).as(version.name()).isEqualTo(415);
      assertThat(second.body()).startsWith("Content-Encoding \"identity, gzip\" is not supported");
    }
  }

  /**
   * Fresh eyes (session 42): over HTTP/1.1, {@code Transfer-Encoding: gzip, chunked} passed Jetty
   * (it decodes only the chunking) and the gzip bytes were answered "not valid JSON" with an empty
   * uid. A transfer coding other than chunked is now a 501 (RFC 9112 §6.1); plain chunked still
   * reaches the review.
   */
  @Test
  void aTransferCodingOtherThanChunkedIs501() throws Exception {
    java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
    try (var out = new java.util.zip.GZIPOutputStream(gz)) {
      out.write(capiCreateReview("u").getBytes(StandardCharsets.UTF_8));
    }
    String gzipped = http1Chunked("gzip, chunked", gz.toByteArray());
    assertThat(gzipped).startsWith("HTTP/1.1 501 ");
    assertThat(gzipped)
        .endsWith(
            "Transfer-Encoding \"gzip, chunked\" is not supported: send the review with a"
                + " Content-Length (as kube-apiserver does) or chunked only\n");
    String chunked =
        http1Chunked("chunked", capiCreateReview("u").getBytes(StandardCharsets.UTF_8));
    assertThat(chunked).startsWith("HTTP/1.1 200 ").contains("\"uid\":\"u\"");
  }

  /**
   * The whole answer to a POST of {@code body} to the validating path over a raw HTTP/1.1 TLS
   * connection, sent as one chunk under the given {@code Transfer-Encoding} (the JDK client sets
   * that header itself).
   */
  private static String http1Chunked(String transferEncoding, byte[] body) throws Exception {
    try (javax.net.ssl.SSLSocket socket =
        (javax.net.ssl.SSLSocket)
            SslContexts.trusting(certs.caFile())
                .getSocketFactory()
                .createSocket("127.0.0.1", URI.create(base).getPort())) {
      socket.setSoTimeout(20_000);
      var out = socket.getOutputStream();
      out.write(
          ("POST "
                  + AdmissionRoutes.VALIDATE_MACHINE
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + "Connection: close\r\nTransfer-Encoding: "
                  + transferEncoding
                  + "\r\n\r\n"
                  + Integer.toHexString(body.length)
                  + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A JSON POST of {@code body} to the validating path with one Content-Encoding field each. */
  private static HttpResponse<String> encoded(
      HttpClient.Version version, byte[] body, String... encodings) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + AdmissionRoutes.VALIDATE_MACHINE))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (String encoding : encodings) {
      request.header("Content-Encoding", encoding);
    }
    return client(version).send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A declared oversize body is refused at once and what the client still sends is read after the
   * 413, so the JDK client, which uploads its whole body before it completes the response, gets the
   * 413 over HTTP/2 as well (it used to wait for flow-control credit the server never gave).
   */
  @Test
  void oversizeBodyIs413WithOrWithoutContentLength() throws Exception {
    byte[] big = new byte[(int) AdmissionEndpoint.MAX_BODY_BYTES + 1];
    java.util.Arrays.fill(big, (byte) ' ');
    HttpResponse<String> declared =
        post(
            HttpClient.Version.HTTP_1_1,
            AdmissionRoutes.MUTATE_MACHINE,
            "application/json",
            HttpRequest.BodyPublishers.ofByteArray(big));
    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.body()).contains("7 MiB");
    HttpResponse<String> declaredH2 =
        post(
            HttpClient.Version.HTTP_2,
            AdmissionRoutes.MUTATE_MACHINE,
            "application/json",
            HttpRequest.BodyPublishers.ofByteArray(big));
    assertThat(declaredH2.statusCode()).isEqualTo(413);
    // chunked: no Content-Length, so the limit is hit while reading
    HttpResponse<String> streamed =
        post(
            HttpClient.Version.HTTP_1_1,
            AdmissionRoutes.MUTATE_MACHINE,
            "application/json",
            HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big)));
    assertThat(streamed.statusCode()).isEqualTo(413);
    // exactly at the limit is still read and decoded (spaces are not JSON, so it is an errored
    // review)
    HttpResponse<String> atLimit =
        post(
            HttpClient.Version.HTTP_2,
            AdmissionRoutes.MUTATE_MACHINE,
            "application/json",
            HttpRequest.BodyPublishers.ofByteArray(java.util.Arrays.copyOf(big, big.length - 1)));
    assertThat(atLimit.statusCode()).isEqualTo(200);
    assertThat(MAPPER.readTree(atLimit.body()).at("/response/allowed").asBoolean()).isFalse();
  }

  @Test
  void unknownPathsAre404WrongMethods405AndATrailingSlashIsIgnored() throws Exception {
    HttpClient http = client(HttpClient.Version.HTTP_2);
    HttpResponse<String> unknown =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/mutate/nothing")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(unknown.statusCode()).isEqualTo(404);
    HttpResponse<String> wrongMethod =
        http.send(
            HttpRequest.newBuilder(URI.create(base + AdmissionRoutes.MUTATE_CAPI_MACHINE))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
    HttpResponse<String> putProbe =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/readyz"))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(putProbe.statusCode()).isEqualTo(405);
    assertThat(putProbe.headers().firstValue("Allow")).hasValue("GET, HEAD");
    for (HttpClient.Version version : HttpClient.Version.values()) {
      // HEAD of a GET route: the GET's status and length, no body (e.g. curl -I)
      HttpResponse<String> head =
          client(version)
              .send(
                  HttpRequest.newBuilder(URI.create(base + "/readyz"))
                      .method("HEAD", HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(head.statusCode()).as("HEAD over %s", version).isEqualTo(200);
      assertThat(head.body()).as("HEAD over %s", version).isEmpty();
      assertThat(head.headers().firstValueAsLong("Content-Length"))
          .as("HEAD over %s", version)
          .hasValue(
              http.send(
                      HttpRequest.newBuilder(URI.create(base + "/readyz")).GET().build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body()
                  .length());
    }
    HttpResponse<String> slash =
        post(
            HttpClient.Version.HTTP_1_1,
            AdmissionRoutes.MUTATE_CAPI_MACHINE + "/",
            "application/json",
            HttpRequest.BodyPublishers.ofString(capiCreateReview("u-slash")));
    assertThat(slash.statusCode()).isEqualTo(200);
    assertThat(MAPPER.readTree(slash.body()).at("/response/uid").asText()).isEqualTo("u-slash");
  }

  @Test
  void healthAndReadiness() throws Exception {
    for (String path : new String[] {"/healthz", "/readyz"}) {
      HttpResponse<String> response =
          client(HttpClient.Version.HTTP_2)
              .send(
                  HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(path).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok\n");
    }
  }

  @Test
  void rotatedCertificateIsServedAndBrokenFilesKeepThePreviousOneServedAndReady() throws Exception {
    String original = Files.readString(certs.certFile());
    String originalKey = Files.readString(certs.keyFile());
    try {
      certs.issueServing("rotated").writeTo(certs.certFile(), certs.keyFile());
      assertThat(server.certificate().reloadIfChanged()).isTrue();
      HttpResponse<String> response = get("/healthz");
      assertThat(peerName(response)).contains("CN=rotated");
      assertThat(reloadFailingGauge()).isEqualTo("0.0");

      // a bad rotation: the files no longer hold a usable pair
      Files.writeString(certs.keyFile(), "garbage");
      server.certificate().reloadIfChanged();
      HttpResponse<String> live = get("/healthz");
      assertThat(live.statusCode()).isEqualTo(200);
      assertThat(live.body()).isEqualTo("ok\n");
      HttpResponse<String> ready = get("/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body())
          .startsWith("ok\nwarning: cannot load ")
          .contains(certs.keyFile().toString(), "still serving the previous certificate (serial ");
      assertThat(peerName(ready)).contains("CN=rotated");
      assertThat(reloadFailingGauge()).isEqualTo("1.0");
    } finally {
      Files.writeString(certs.certFile(), original);
      Files.writeString(certs.keyFile(), originalKey);
      assertThat(server.certificate().reloadIfChanged()).isTrue();
      assertThat(server.certificate().reloadProblem()).isEmpty();
    }
    assertThat(get("/readyz").body()).isEqualTo("ok\n");
    assertThat(reloadFailingGauge()).isEqualTo("0.0");
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client(HttpClient.Version.HTTP_1_1)
        .send(
            HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static String peerName(HttpResponse<String> response) throws Exception {
    return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0])
        .getSubjectX500Principal()
        .getName();
  }

  /** The value of {@code ironcore_maintenance_serving_certificate_reload_failing} at /metrics. */
  private String reloadFailingGauge() throws Exception {
    String name = "ironcore_maintenance_serving_certificate_reload_failing ";
    return get("/metrics")
        .body()
        .lines()
        .filter(line -> line.startsWith(name))
        .map(line -> line.substring(name.length()).trim())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + "at /metrics"));
  }
}

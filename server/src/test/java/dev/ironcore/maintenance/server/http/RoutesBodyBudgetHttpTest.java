package dev.ironcore.maintenance.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Routes} with a small {@link BodyBudget} and a short body deadline on a real Jetty (plain
 * HTTP/1.1 on loopback; neither depends on TLS or the protocol): a body waits for room, unread, and
 * gets 503 when none comes within the wait; one that does not arrive within the deadline gets 408
 * and frees its room; an endpoint failing with an Error still answers (500) and frees its room.
 */
@Timeout(60)
class RoutesBodyBudgetHttpTest {
  private static final int LARGE = 100_000;

  private final java.util.List<String> answeredEarly =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final CountDownLatch holding = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private Server jetty;
  private URI base;

  @BeforeEach
  void start() throws Exception {
    // room for one large body (100,000 bytes reserve 231,072 with the room for their tree); a
    // waiting one is refused after 1 s
    Routes routes =
        new Routes(
            new BodyBudget(300_000, Duration.ofSeconds(1)),
            Duration.ofSeconds(2),
            (path, status) -> answeredEarly.add(path + " " + status));
    routes.post("/echo", request -> Reply.text(200, "read " + bodyLength(request)));
    routes.get("/ping", request -> Reply.text(200, "pong"));
    routes.post(
        "/unlinked",
        request -> {
          throw new NoClassDefFoundError("io/fabric8/kubernetes/api/model/autoscaling/v1/Scale");
        });
    routes.post(
        "/review",
        new AdmissionEndpoint(
            request -> dev.ironcore.maintenance.server.admission.AdmissionResponse.allowed()));
    routes.post(
        "/hold",
        request -> {
          long n = bodyLength(request);
          holding.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Reply.text(200, "held " + n);
        });
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    jetty.addConnector(connector);
    jetty.setHandler(routes);
    jetty.start();
    base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
  }

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    jetty.stop();
  }

  private static long bodyLength(org.eclipse.jetty.server.Request request) throws IOException {
    try (InputStream in = org.eclipse.jetty.io.Content.Source.asInputStream(request)) {
      return in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }

  private CompletableFuture<HttpResponse<String>> post(String path, byte[] body) {
    return client.sendAsync(
        HttpRequest.newBuilder(base.resolve(path))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A body without Content-Length (the JDK client sends it chunked). */
  private CompletableFuture<HttpResponse<String>> postChunked(String path, byte[] body) {
    return client.sendAsync(
        HttpRequest.newBuilder(base.resolve(path))
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private CompletableFuture<HttpResponse<String>> holdTheBudget() throws Exception {
    CompletableFuture<HttpResponse<String>> held = post("/hold", new byte[LARGE]);
    assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
    return held;
  }

  @Test
  void anEndpointFailingWithAnErrorIsAnswered500AndFreesItsRoom() throws Exception {
    // a missing class (LinkageError) is no Exception: unanswered, the request would wait for the
    // client's timeout (kube-apiserver: the webhook's timeoutSeconds) and hold its room
    HttpResponse<String> failed = post("/unlinked", new byte[LARGE]).get(10, TimeUnit.SECONDS);
    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(post("/echo", new byte[LARGE]).get(10, TimeUnit.SECONDS).body())
        .isEqualTo("read " + LARGE);
  }

  @Test
  void aLargeBodyWaitsForRoomAndIsAnsweredOnceTheRequestBeforeItCompleted() throws Exception {
    CompletableFuture<HttpResponse<String>> held = holdTheBudget();
    CompletableFuture<HttpResponse<String>> waiting = post("/echo", new byte[LARGE]);
    Thread.sleep(400);
    assertThat(waiting).isNotDone();
    release.countDown();
    assertThat(held.get(10, TimeUnit.SECONDS).body()).isEqualTo("held " + LARGE);
    HttpResponse<String> answer = waiting.get(10, TimeUnit.SECONDS);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("read " + LARGE);
  }

  @Test
  void aLargeBodyThatFindsNoRoomWithinTheWaitGets503WithRetryAfter() throws Exception {
    holdTheBudget();
    long start = System.nanoTime();
    HttpResponse<String> refused = post("/echo", new byte[LARGE]).get(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(refused.body())
        .isEqualTo(
            "the server is answering other large requests: no room for this body of 100000 bytes"
                + " within 1 s (it answers at most 300000 bytes of request bodies at once, set by"
                + " its heap); send the request again");
    assertThat(answeredEarly).containsExactly("/echo 503");
    // nothing was held for the refused one: once the first is done a large body gets in again
    release.countDown();
    assertThat(post("/echo", new byte[LARGE]).get(10, TimeUnit.SECONDS).body())
        .isEqualTo("read " + LARGE);
  }

  @Test
  void aBodyOfUnknownLengthReservesTheLargestBodyWhenItsFirstBytesCome() throws Exception {
    holdTheBudget();
    HttpResponse<String> refused = postChunked("/echo", new byte[5_000]).get(10, TimeUnit.SECONDS);
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("no room for this body of unknown length within 1 s");
    release.countDown();
    HttpResponse<String> answer = postChunked("/echo", new byte[LARGE]).get(10, TimeUnit.SECONDS);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("read " + LARGE);
  }

  @Test
  void smallBodiesWithAContentLengthFitBesideALargeOne() throws Exception {
    holdTheBudget();
    long start = System.nanoTime();
    assertThat(post("/echo", new byte[5_000]).get(10, TimeUnit.SECONDS).body())
        .isEqualTo("read 5000");
    assertThat(post("/echo", new byte[20_000]).get(10, TimeUnit.SECONDS).body())
        .isEqualTo("read 20000");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void aBodyThatDoesNotArriveWithinTheDeadlineGets408AndFreesItsRoom() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", base.getPort())) {
      socket.setSoTimeout(10_000);
      String head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + LARGE + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(new byte[1_000]);
      socket.getOutputStream().flush();
      long start = System.nanoTime();
      String answer = readResponse(socket.getInputStream());
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
      assertThat(answer)
          .startsWith("HTTP/1.1 408 ")
          .endsWith(
              "the request body did not arrive within 2 s (1000 of 100000 bytes came); send the"
                  + " request again");
    }
    assertThat(answeredEarly).containsExactly("/echo 408");
    // its room is free again: a body that needs all of it is answered at once
    assertThat(post("/echo", new byte[150_000]).get(10, TimeUnit.SECONDS).body())
        .isEqualTo("read 150000");
  }

  /**
   * A GET (a probe, a scrape) that declares a body it never sends is answered at once: GET
   * endpoints read no body, so it neither waits for room in the budget nor for its body, and cannot
   * take room that reviews need.
   */
  @Test
  void aGetThatDeclaresABodyIsAnsweredWithoutWaitingForRoomOrBody() throws Exception {
    holdTheBudget();
    try (Socket socket = new Socket("127.0.0.1", base.getPort())) {
      socket.setSoTimeout(10_000);
      String head = "GET /ping HTTP/1.1\r\nHost: x\r\nContent-Length: " + LARGE + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      assertThat(readResponse(socket.getInputStream()))
          .startsWith("HTTP/1.1 200 ")
          .endsWith("pong");
    }
    assertThat(answeredEarly).isEmpty();
  }

  @Test
  void theConnectionOfARefusedBodyStaysUsable() throws Exception {
    holdTheBudget();
    try (Socket socket = new Socket("127.0.0.1", base.getPort())) {
      socket.setSoTimeout(10_000);
      byte[] body = new byte[LARGE];
      String head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + LARGE + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(body);
      socket.getOutputStream().flush();
      String first = readResponse(socket.getInputStream());
      assertThat(first).startsWith("HTTP/1.1 503 ");
      release.countDown();
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(body);
      socket.getOutputStream().flush();
      assertThat(readResponse(socket.getInputStream()))
          .startsWith("HTTP/1.1 200 ")
          .endsWith("read " + LARGE);
    }
  }

  /** One response with a Content-Length, head and body, as text. */
  private static String readResponse(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed after: " + head);
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  /** An AdmissionReview whose object has {@code annotations} small annotations. */
  private static byte[] denseReview(int annotations) {
    StringBuilder b =
        new StringBuilder(
            "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                + "\"request\":{\"uid\":\"u-1\",\"operation\":\"CREATE\","
                + "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"},"
                + "\"object\":{\"metadata\":{\"name\":\"m\",\"annotations\":{");
    for (int i = 0; i < annotations; i++) {
      b.append(i == 0 ? "" : ",").append("\"a").append(i).append("\":\"v\"");
    }
    return b.append("}}}}}").toString().getBytes(StandardCharsets.UTF_8);
  }

  private CompletableFuture<HttpResponse<String>> postJson(String path, byte[] body) {
    return client.sendAsync(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A review of many small values takes far more heap as a tree than its bytes say: one whose tree
   * alone would exceed the whole budget is refused with 413, however idle the server.
   */
  @Test
  void aReviewWhoseTreeCouldNeverFitGets413() throws Exception {
    byte[] review = denseReview(8_000); // 16,000 tokens: 384,000 bytes at 24 a token
    assertThat(review.length).isLessThan(LARGE);
    HttpResponse<String> answer = postJson("/review", review).get(10, TimeUnit.SECONDS);
    assertThat(answer.statusCode()).isEqualTo(413);
    assertThat(answer.body())
        .contains("request body has too many JSON values")
        .contains("300000 bytes of request bodies it answers at once");
    assertThat(postJson("/review", denseReview(10)).get(10, TimeUnit.SECONDS).statusCode())
        .isEqualTo(200);
  }

  /**
   * A review whose tree fits the budget but not beside what others hold is refused at once with 503
   * and Retry-After (it holds its body and may not wait for others that may wait for it); sent
   * again once the room is free, it is answered.
   */
  @Test
  void aReviewWhoseTreeFindsNoRoomNowGets503AndIsAnsweredLater() throws Exception {
    byte[] review = denseReview(1_500); // 3,000 tokens: 72,000 bytes beside its 20 KB
    CompletableFuture<HttpResponse<String>> held = holdTheBudget();
    HttpResponse<String> busy = postJson("/review", review).get(10, TimeUnit.SECONDS);
    assertThat(busy.statusCode()).isEqualTo(503);
    assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(busy.body()).contains("no room now for the JSON values of this body");
    release.countDown();
    assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    HttpResponse<String> answer = postJson("/review", review).get(10, TimeUnit.SECONDS);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).contains("\"allowed\":true").contains("\"uid\":\"u-1\"");
  }
}

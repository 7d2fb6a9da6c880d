package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * No thread waits for a request body. Clients whose request bodies come slowly hold no request
 * thread while they wait: with more such clients than the server has threads ({@code --max-threads}
 * at its minimum), a review from another client is still answered at once, and each slow client's
 * review is answered, with its own uid, once the rest of its body comes. (Before the bodies were
 * read without blocking, every waiting body parked one of Jetty's threads until Jetty's 30 s idle
 * timeout.)
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a regression hangs
class SlowBodiesHttpTest {
  private static final int SLOW_CLIENTS = 2 * WebhookServerConfig.MIN_THREADS;

  @TempDir Path dir;

  private TestCertificates certs;

  /** The server with the fewest threads it accepts. */
  private WebhookServer smallServer() {
    certs = TestCertificates.create(dir);
    return new WebhookServer(
        WebhookServerConfig.of(certs.certFile(), certs.keyFile())
            .withBindAddress("127.0.0.1")
            .withCertificateReloadInterval(Duration.ZERO)
            .withMaxThreads(WebhookServerConfig.MIN_THREADS));
  }

  @Test
  void slowBodiesHoldNoThreadAndAreAnsweredWhenTheyCome() throws Exception {
    WebhookServer server = smallServer();
    int port = server.start(0);
    List<SSLSocket> slow = new ArrayList<>();
    try {
      List<byte[]> bodies = new ArrayList<>();
      for (int i = 0; i < SLOW_CLIENTS; i++) {
        byte[] body = review("u-slow-" + i);
        slow.add(
            RawHttp1.post(
                certs,
                port,
                AdmissionRoutes.VALIDATE_MACHINEPOOL,
                body.length,
                java.util.Arrays.copyOf(body, body.length / 2)));
        bodies.add(body);
      }

      assertQuickReviewsAnswered(port);

      for (int i = 0; i < SLOW_CLIENTS; i++) {
        byte[] body = bodies.get(i);
        OutputStream out = slow.get(i).getOutputStream();
        out.write(body, body.length / 2, body.length - body.length / 2);
        out.flush();
      }
      for (int i = 0; i < SLOW_CLIENTS; i++) {
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(slow.get(i).getInputStream(), StandardCharsets.UTF_8));
        assertThat(in.readLine()).as("slow client " + i).isEqualTo("HTTP/1.1 200 OK");
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
          // headers
        }
        char[] reply = new char[4096];
        int n = in.read(reply);
        assertThat(new String(reply, 0, Math.max(n, 0))).contains("\"uid\":\"u-slow-" + i + "\"");
      }
    } finally {
      for (SSLSocket socket : slow) {
        socket.close();
      }
      server.stop();
    }
  }

  /**
   * HTTP/2 bodies that do not match their content-length (fewer bytes, or more), large and small:
   * Jetty resets such a stream itself (PROTOCOL_ERROR) and never tells a reader waiting for the
   * body, so a thread blocked on it stayed parked for good: a dozen of them, found by a fresh-eyes
   * check, left the server answering nothing. No thread waits for a body now. (Jetty never
   * completes such a request either, so a graceful stop afterwards waits its full 10 s for them and
   * logs that it did not stop cleanly.)
   */
  @Test
  void http2BodiesNotMatchingTheirContentLengthLeaveTheServerAnswering() throws Exception {
    WebhookServer server = smallServer();
    int port = server.start(0);
    List<SSLSocket> connections = new ArrayList<>();
    try {
      byte[] review = review("u-mismatch");
      for (int i = 0; i < SLOW_CLIENTS; i++) {
        long declared = i % 2 == 0 ? 65_537 + i : 1_000 + i;
        byte[] sent =
            i % 4 < 2 ? java.util.Arrays.copyOf(review, 10) : padded(review, declared + 10);
        connections.add(
            RawHttp2.post(certs, port, AdmissionRoutes.VALIDATE_MACHINEPOOL, declared, sent));
      }
      assertQuickReviewsAnswered(port);
    } finally {
      for (SSLSocket socket : connections) {
        socket.close();
      }
      server.stop();
    }
  }

  /**
   * A request still receiving its body when the server stops gets 503 saying so (it got 408
   * "nothing more within the idle timeout", which blamed the client for the server's stop).
   */
  @Test
  void aBodyCutOffByTheStopIs503() throws Exception {
    WebhookServer server = smallServer();
    int port = server.start(0);
    byte[] body = review("u-stopped");
    try (SSLSocket socket =
        RawHttp1.post(
            certs,
            port,
            AdmissionRoutes.VALIDATE_MACHINEPOOL,
            body.length,
            java.util.Arrays.copyOf(body, body.length / 2))) {
      socket.setSoTimeout(20_000);
      Thread.sleep(200); // the server has the headers and half the body
      Thread stopper = new Thread(server::stop);
      stopper.start();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer)
          .startsWith("HTTP/1.1 503")
          .contains("the server is shutting down and stopped reading the request body");
      stopper.join(30_000);
    } finally {
      server.stop();
    }
  }

  /**
   * Bodies in many small pieces (one TLS record per byte, or per 100 bytes of a 70 KB body) are
   * answered like any other: the server copies such a body instead of keeping every piece.
   */
  @Test
  void bodiesInManySmallPiecesAreAnswered() throws Exception {
    WebhookServer server = smallServer();
    int port = server.start(0);
    try {
      for (int[] shape : new int[][] {{0, 1}, {70_000, 100}}) {
        byte[] review = review("u-pieces-" + shape[0]);
        byte[] body = shape[0] == 0 ? review : padded(review, shape[0]);
        try (SSLSocket socket =
            RawHttp1.post(
                certs, port, AdmissionRoutes.VALIDATE_MACHINEPOOL, body.length, new byte[0])) {
          OutputStream out = socket.getOutputStream();
          for (int from = 0; from < body.length; from += shape[1]) {
            out.write(body, from, Math.min(shape[1], body.length - from));
            out.flush();
          }
          BufferedReader in =
              new BufferedReader(
                  new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
          StringBuilder answer = new StringBuilder();
          for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            answer.append(line).append('\n');
          }
          char[] reply = new char[4096];
          answer.append(reply, 0, Math.max(in.read(reply), 0));
          assertThat(answer.toString())
              .as("a %d-byte body in %d-byte pieces", body.length, shape[1])
              .startsWith("HTTP/1.1 200")
              .contains("\"uid\":\"u-pieces-" + shape[0] + "\"");
        }
      }
    } finally {
      server.stop();
    }
  }

  private void assertQuickReviewsAnswered(int port) throws Exception {
    for (HttpClient.Version version : HttpClient.Version.values()) {
      HttpClient client =
          HttpClient.newBuilder()
              .version(version)
              .sslContext(SslContexts.trusting(certs.caFile()))
              .connectTimeout(Duration.ofSeconds(10))
              .build();
      HttpResponse<String> answer =
          client.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "https://127.0.0.1:" + port + AdmissionRoutes.VALIDATE_MACHINEPOOL))
                  .timeout(Duration.ofSeconds(10))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(review("u-quick-" + version)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(version.toString()).isEqualTo(200);
      assertThat(answer.body()).contains("\"uid\":\"u-quick-" + version + "\"");
    }
  }

  /** {@code review} followed by spaces up to {@code length} bytes. */
  private static byte[] padded(byte[] review, long length) {
    byte[] out = java.util.Arrays.copyOf(review, (int) length);
    java.util.Arrays.fill(out, review.length, out.length, (byte) ' ');
    return out;
  }

  private static byte[] review(String uid) {
    var pool =
        TestReviews.json(
            "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"MachinePool\","
                + "\"metadata\":{\"name\":\"pool-a\"},\"spec\":{\"taints\":[]}}");
    return TestReviews.review(
            uid,
            "compute.ironcore.dev",
            "v1alpha2",
            "MachinePool",
            "machinepools",
            Operation.CREATE,
            pool,
            null)
        .toString()
        .getBytes(StandardCharsets.UTF_8);
  }
}

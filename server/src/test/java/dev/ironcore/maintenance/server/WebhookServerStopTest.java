package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.JavaMain;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WebhookServerMain} as its own process, stopped with SIGTERM (as the kubelet does) while
 * reviews keep arriving: every review answered before the stop is a full 200 reply (a request after
 * it is refused: no connection, or 503 on a kept-alive one), and the process exits 0 within the
 * grace period.
 */
class WebhookServerStopTest {
  @TempDir Path dir;

  @Test
  void sigtermFinishesInFlightReviewsAndExitsZero() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    int port = FreePorts.pick(1).get(0);
    Path log = dir.resolve("server.log");
    Process process =
        JavaMain.processBuilder(
                WebhookServerMain.class,
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--tls-cert-file=" + certs.certFile(),
                "--tls-private-key-file=" + certs.keyFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      HttpClient http =
          HttpClient.newBuilder()
              .sslContext(SslContexts.trusting(certs.caFile()))
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      String base = "https://127.0.0.1:" + port;
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () ->
                  http.send(
                              HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
                              HttpResponse.BodyHandlers.discarding())
                          .statusCode()
                      == 200);

      String review =
          "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\"}}";
      ConcurrentLinkedQueue<String> answers = new ConcurrentLinkedQueue<>();
      AtomicBoolean sending = new AtomicBoolean(true);
      Thread sender =
          new Thread(
              () -> {
                while (sending.get()) {
                  try {
                    HttpResponse<String> r =
                        http.send(
                            HttpRequest.newBuilder(URI.create(base + "/validate/machine"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(review))
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    answers.add(r.statusCode() + " " + r.body());
                  } catch (java.io.IOException e) {
                    // refused once the server stopped accepting: expected
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      sender.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> answers.size() >= 5);

      process.destroy(); // SIGTERM
      assertThat(process.waitFor(WebhookServer.IN_FLIGHT_DRAIN.toSeconds() + 10, TimeUnit.SECONDS))
          .as("ended within the grace period")
          .isTrue();
      sending.set(false);
      sender.join(30_000);

      assertThat(process.exitValue()).isZero();
      // every review answered before the stop began is a full 200; a request that reached a
      // kept-alive connection after it began is refused with 503, as a new connection is refused
      // (docs/reliability.md; seen once in a fresh-clone run): 200s, then at most 503s
      List<String> answered = List.copyOf(answers);
      int firstRefusal = answered.size();
      for (int i = 0; i < answered.size(); i++) {
        if (answered.get(i).startsWith("503 ")) {
          firstRefusal = i;
          break;
        }
      }
      assertThat(answered.subList(0, firstRefusal))
          .hasSizeGreaterThanOrEqualTo(5)
          .allSatisfy(a -> assertThat(a).startsWith("200 ").contains("\"uid\":\"u-1\""));
      assertThat(answered.subList(firstRefusal, answered.size()))
          .as("after the first refusal only refusals")
          .allSatisfy(a -> assertThat(a).startsWith("503 "));
      List<String> lines = Files.readAllLines(log);
      assertThat(lines).anySatisfy(l -> assertThat(l).contains("stopped"));
    } finally {
      process.destroyForcibly();
    }
  }
}

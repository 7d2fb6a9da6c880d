package dev.ironcore.maintenance.server.e2e;

import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.WebhookServerMain;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link WebhookServerMain} as its own OS process on a fixed loopback port, so a test can kill it
 * with SIGKILL or SIGTERM while the API server calls it and start it again on the same port.
 */
final class WebhookProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final HttpClient http;

  private WebhookProcess(Process process, int port, HttpClient http) {
    this.process = process;
    this.port = port;
    this.http = http;
  }

  /**
   * @param kubeconfig the cluster the server watches Machines in (its eviction warnings), given as
   *     {@code --kubeconfig}; {@code KUBECONFIG} names a file that does not exist, which the server
   *     would refuse at start were the flag not taken first
   * @param log appended to
   */
  static WebhookProcess start(TestCertificates certs, int port, Path kubeconfig, Path log)
      throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-cp",
                    System.getProperty("java.class.path"),
                    WebhookServerMain.class.getName(),
                    "--port=" + port,
                    "--bind-address=127.0.0.1",
                    "--tls-cert-file=" + certs.certFile(),
                    "--tls-private-key-file=" + certs.keyFile(),
                    "--kubeconfig=" + kubeconfig))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("KUBECONFIG", kubeconfig.resolveSibling("no-such-kubeconfig").toString());
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(SslContexts.trusting(certs.caFile()))
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    return new WebhookProcess(pb.start(), port, http);
  }

  /** HTTP status of GET {@code path}, or -1 when nothing answers. */
  int status(String path) {
    try {
      return get(path).statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Reviews being answered now, from {@code ironcore_maintenance_webhook_requests_in_flight} (all
   * webhooks); 0 when the server does not answer.
   */
  double inFlight() {
    try {
      double sum = 0;
      for (String line : get("/metrics").body().split("\n")) {
        if (line.startsWith("ironcore_maintenance_webhook_requests_in_flight{")) {
          sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return sum;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private HttpResponse<String> get(String path) throws IOException {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /** SIGKILL, returning at once: requests in flight are cut. */
  void killNow() {
    process.destroyForcibly();
  }

  /** SIGTERM; the exit code, or -1 when the process did not end within {@code grace}. */
  int terminate(Duration grace) throws InterruptedException {
    process.destroy();
    return process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }
}

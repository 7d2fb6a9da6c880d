package dev.ironcore.maintenance.image;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The webhook server started as its Deployment ({@code manifests/deploy/webhook_deployment.yaml})
 * starts it, on the build's image Java ({@link ShippedContainer}), ready, and an HTTP/2 client
 * trusting it. The Deployment's args are kept but for the addresses and files a pod has and this
 * machine has not: {@code --port} and the probe and metrics addresses get free loopback ports, the
 * TLS files a serving certificate for 127.0.0.1 issued by a CA of one hour under {@code dir}
 * ({@code tls.crt}, {@code tls.key}, {@code ca.crt}); the server logs to {@code dir/server.log}.
 *
 * @param server the JVM
 * @param client trusts the server's CA; HTTP/2 as kube-apiserver speaks it
 * @param base {@code https://127.0.0.1:<port>}
 * @param dir certificates and log
 * @param probes {@code http://127.0.0.1:<port>} of {@code --health-probe-bind-address}
 * @param metrics {@code http://127.0.0.1:<port>} of {@code --metrics-bind-address}
 */
record ShippedWebhook(
    Process server, HttpClient client, URI base, Path dir, URI probes, URI metrics)
    implements AutoCloseable {

  /**
   * Starts the server and waits (up to 60 s) until {@code /readyz} answers 200.
   *
   * @param jvm the build's {@code image/target/jvm}
   * @param dir created if missing
   * @param javaToolOptions the whole {@code JAVA_TOOL_OPTIONS} (e.g. {@link
   *     ShippedContainer#javaToolOptions()} plus {@code -XX:AOTMode=on})
   * @param env added to this process's environment, from which {@code KUBECONFIG} is removed (as in
   *     a pod: fabric8 reads one only when {@code env} names it)
   * @throws IllegalStateException when the server exits or is not ready in time (with its log)
   */
  static ShippedWebhook start(Path jvm, Path dir, String javaToolOptions, Map<String, String> env)
      throws Exception {
    ShippedContainer c = ShippedContainer.of("webhook_deployment.yaml", jvm);
    Files.createDirectories(dir);
    CertificateAuthority ca =
        CertificateAuthority.generate("shipped-webhook-ca", Duration.ofHours(1));
    Files.writeString(dir.resolve("ca.crt"), ca.certificatePem());
    ca.issueServing("localhost", List.of(), List.of("127.0.0.1"), Duration.ofHours(1))
        .writeTo(dir.resolve("tls.crt"), dir.resolve("tls.key"));
    List<Integer> ports = FreePorts.pick(3);
    URI probes = URI.create("http://127.0.0.1:" + ports.get(1));
    URI metrics = URI.create("http://127.0.0.1:" + ports.get(2));
    List<String> cmd =
        c.commandWith(
            Map.of(
                "--port", String.valueOf(ports.get(0)),
                "--health-probe-bind-address", "127.0.0.1:" + ports.get(1),
                "--metrics-bind-address", "127.0.0.1:" + ports.get(2),
                "--tls-cert-file", dir.resolve("tls.crt").toString(),
                "--tls-private-key-file", dir.resolve("tls.key").toString()),
            Set.of());
    cmd.add("--bind-address=127.0.0.1");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("server.log").toFile());
    pb.environment().put("JAVA_TOOL_OPTIONS", javaToolOptions);
    pb.environment().put("MALLOC_ARENA_MAX", c.env("MALLOC_ARENA_MAX"));
    pb.environment().remove("KUBECONFIG");
    pb.environment().putAll(env);
    ShippedWebhook webhook =
        new ShippedWebhook(
            pb.start(),
            HttpClient.newBuilder()
                .sslContext(SslContexts.trusting(dir.resolve("ca.crt")))
                .connectTimeout(Duration.ofSeconds(5))
                .build(),
            URI.create("https://127.0.0.1:" + ports.get(0)),
            dir,
            probes,
            metrics);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (webhook.server.isAlive() && System.nanoTime() < deadline) {
      try {
        if (webhook.get(webhook.base.resolve("/readyz")).statusCode() == 200) {
          return webhook;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    webhook.close();
    throw new IllegalStateException(
        "the webhook server "
            + (webhook.server.isAlive() ? "was not ready within 60 s" : "exited")
            + ":\n"
            + webhook.log());
  }

  /** POSTs {@code body} as JSON to {@code path}. */
  CompletableFuture<HttpResponse<String>> post(String path, String body) {
    return client.sendAsync(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** GETs {@code uri} (of this server's ports) and waits for the answer. */
  HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The server's output so far (stdout and stderr), or why it cannot be read. */
  String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  /**
   * SIGTERM, then waits up to {@code seconds} for the JVM to exit (it writes an AOT cache it was
   * asked for as it exits).
   *
   * @return the exit code
   * @throws IllegalStateException when it has not exited by then (it is then killed)
   */
  int stop(long seconds) throws InterruptedException {
    server.destroy();
    if (!server.waitFor(seconds, TimeUnit.SECONDS)) {
      server.destroyForcibly();
      throw new IllegalStateException(
          "the webhook server did not stop within " + seconds + " s of SIGTERM");
    }
    return server.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    server.destroy();
    server.waitFor(10, TimeUnit.SECONDS);
    server.destroyForcibly();
  }
}

package dev.ironcore.maintenance.controller.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The controller's plain-HTTP listeners (JDK HTTP server), as controller-runtime splits them: the
 * probe listener ({@link #probes}: {@code /healthz}, {@code /readyz}) and the metrics listener
 * ({@link #metrics}: {@code /metrics}).
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  private HealthServer(HttpServer server) {
    this.server = server;
  }

  /**
   * {@code /healthz}: 200 while the process runs (liveness only); {@code /readyz}: 200 while {@code
   * ready} says so, else 503; the body is {@code describe}'s line.
   *
   * @param address where to listen; port 0 picks a free one
   * @throws IOException when the address cannot be bound
   */
  public static HealthServer probes(
      InetSocketAddress address, BooleanSupplier ready, Supplier<String> describe)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    server.createContext("/healthz", ex -> reply(ex, 200, "ok\n", "text/plain"));
    server.createContext(
        "/readyz",
        ex -> reply(ex, ready.getAsBoolean() ? 200 : 503, describe.get() + "\n", "text/plain"));
    server.start();
    return new HealthServer(server);
  }

  /**
   * {@code /metrics}: the registry in Prometheus text format.
   *
   * @param address where to listen; port 0 picks a free one
   * @throws IOException when the address cannot be bound
   */
  public static HealthServer metrics(InetSocketAddress address, PrometheusMeterRegistry registry)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    server.createContext(
        "/metrics",
        ex -> reply(ex, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"));
    server.start();
    return new HealthServer(server);
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void reply(HttpExchange ex, int status, String body, String contentType)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

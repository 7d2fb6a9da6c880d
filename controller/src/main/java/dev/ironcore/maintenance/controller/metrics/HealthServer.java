package dev.ironcore.maintenance.controller.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The controller's probe and metrics endpoint (JDK HTTP server, plain HTTP): {@code /healthz} (200
 * while healthy, else 503), {@code /readyz} (200 while ready, else 503) and {@code /metrics}
 * (Prometheus text format).
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  private HealthServer(HttpServer server) {
    this.server = server;
  }

  /**
   * @param bindAddress {@code host:port} or {@code :port} (all interfaces); port 0 picks a free one
   * @throws IOException when the address cannot be bound
   */
  public static HealthServer start(
      String bindAddress, BooleanSupplier ready, PrometheusMeterRegistry registry)
      throws IOException {
    return start(bindAddress, ready, () -> true, registry);
  }

  /**
   * @param healthy {@code /healthz} answers 503 while this is false
   * @see #start(String, BooleanSupplier, PrometheusMeterRegistry)
   */
  public static HealthServer start(
      String bindAddress,
      BooleanSupplier ready,
      BooleanSupplier healthy,
      PrometheusMeterRegistry registry)
      throws IOException {
    int colon = bindAddress.lastIndexOf(':');
    String host = colon <= 0 ? "0.0.0.0" : bindAddress.substring(0, colon);
    int port = Integer.parseInt(bindAddress.substring(colon + 1));
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext(
        "/healthz",
        ex -> {
          boolean ok = healthy.getAsBoolean();
          reply(ex, ok ? 200 : 503, ok ? "ok\n" : "an informer is down too long\n", "text/plain");
        });
    server.createContext(
        "/readyz",
        ex -> {
          boolean ok = ready.getAsBoolean();
          reply(ex, ok ? 200 : 503, ok ? "ok\n" : "caches not synced yet\n", "text/plain");
        });
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

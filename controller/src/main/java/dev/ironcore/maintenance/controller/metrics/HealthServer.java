package dev.ironcore.maintenance.controller.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
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
 * ({@link #metrics}: {@code /metrics}). Each path answers GET and HEAD, with or without a trailing
 * slash; another method gets 405 with {@code Allow: GET, HEAD}, another path 404 (as the webhook
 * server's probe port).
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
    return probes(address, ready, describe, () -> true);
  }

  /**
   * As {@link #probes(InetSocketAddress, BooleanSupplier, Supplier)}, with a liveness check.
   *
   * @param healthy {@code /healthz} answers 503 while this is false (e.g. a watch down too long)
   */
  public static HealthServer probes(
      InetSocketAddress address,
      BooleanSupplier ready,
      Supplier<String> describe,
      BooleanSupplier healthy)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    get(
        server,
        "/healthz",
        ex -> {
          boolean ok = healthy.getAsBoolean();
          reply(
              ex,
              ok ? 200 : 503,
              ok
                  ? "ok\n"
                  // which of the two: the log's WARN (informer) or ERROR (stalled connections)
                  : "an informer is down too long, or the connections to an API server are"
                      + " stalled (see the log)\n",
              "text/plain");
        });
    get(
        server,
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
    get(
        server,
        "/metrics",
        ex -> reply(ex, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"));
    server.start();
    return new HealthServer(server);
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * Serves {@code path} (and {@code path/}) with {@code handler} for GET and HEAD; the JDK server
   * matches contexts by prefix, so a longer path ({@code /readyzz}) gets 404 here.
   */
  private static void get(HttpServer server, String path, HttpHandler handler) {
    server.createContext(
        path,
        ex -> {
          String requested = ex.getRequestURI().getPath();
          if (!requested.equals(path) && !requested.equals(path + "/")) {
            reply(ex, 404, "not found\n", "text/plain");
          } else if (!ex.getRequestMethod().equals("GET")
              && !ex.getRequestMethod().equals("HEAD")) {
            ex.getResponseHeaders().set("Allow", "GET, HEAD");
            reply(ex, 405, "method not allowed: " + path + " answers GET and HEAD\n", "text/plain");
          } else {
            handler.handle(ex);
          }
        });
  }

  private static void reply(HttpExchange ex, int status, String body, String contentType)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    if (ex.getRequestMethod().equals("HEAD")) {
      ex.sendResponseHeaders(status, -1);
      ex.close();
      return;
    }
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

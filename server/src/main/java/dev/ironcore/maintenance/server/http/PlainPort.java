package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.tls.ConnectionCeiling;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * A plain-HTTP/1.1 port of its own for a few GET paths, beside the HTTPS webhook port, as
 * controller-runtime serves probes and metrics: {@link #PROBES} ({@code
 * --health-probe-bind-address}) so that kubelet's probes never wait behind webhook connections, and
 * {@link #METRICS} ({@code --metrics-bind-address}) so that Prometheus scrapes without the webhook
 * CA and while the webhook port is full. The webhook port's {@code --max-connections} does not
 * count them; each takes at most {@link #maxConnections()} ({@link #ceiling}). Every other path on
 * such a port gets 404: reviews are served over HTTPS only.
 *
 * @param title what it serves, for messages and the connector's name, e.g. {@code health probes}
 * @param flag the flag that opens it, for log lines
 * @param paths the paths served there (a trailing slash allowed)
 * @param maxConnections most open connections
 */
public record PlainPort(String title, String flag, Set<String> paths, int maxConnections) {
  /**
   * {@code /healthz} and {@code /readyz}, at most 8 connections. The kubelet opens one connection
   * per probe and closes it after the answer (two probes per pod); without a limit, a client of
   * this port could fill the heap with connections that never finish their headers (measured with
   * the shipped settings: 5,000 connections that had each sent 7 KB of headers ended the JVM with
   * {@code OutOfMemoryError} within 10 s).
   */
  public static final PlainPort PROBES =
      new PlainPort(
          "health probes", "--health-probe-bind-address", Set.of("/healthz", "/readyz"), 8);

  /**
   * {@code /metrics} (Prometheus text format), at most 4 connections: Prometheus keeps one open per
   * scraping server.
   */
  public static final PlainPort METRICS =
      new PlainPort("metrics", "--metrics-bind-address", Set.of("/metrics"), 4);

  public PlainPort {
    paths = Set.copyOf(paths);
  }

  /**
   * The limit of {@link #maxConnections()} open connections on {@code connector}, as {@link
   * ConnectionCeiling} enforces the webhook port's: further connections wait in the accept queue,
   * and at the limit connections with no request for 5 s are closed. Add it to the server as a
   * bean. Its events are logged (WARN, at most once a minute), not metered.
   */
  public ConnectionCeiling ceiling(ServerConnector connector) {
    return new ConnectionCeiling(
        maxConnections,
        new ConnectionCeiling.Limit(
            title + " port", "fixed, for " + String.join(" and ", sorted())),
        connector,
        () -> {},
        () -> {});
  }

  /**
   * A plain HTTP/1.1 connector with one acceptor thread and one selector. Not zero acceptors (the
   * selector accepting): Jetty 12.1.12 then re-registers the accepting channel each time the
   * connection limit lifts, and a client that gave up meanwhile could leave it cancelled; Jetty
   * then closed the listening socket for good (seen 1 in 3–6 floods, every later probe refused).
   *
   * @param address where to listen; port 0 picks a free one
   */
  public ServerConnector connector(
      Server server, HttpConfiguration http, InetSocketAddress address) {
    ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setName(title.replace(' ', '-'));
    connector.setHost(address.getAddress().getHostAddress());
    connector.setPort(address.getPort());
    return connector;
  }

  /**
   * Wraps the server's handler: a request that arrives on one of {@code ports}' connectors reaches
   * {@code next} only for that port's {@link #paths()}; others get 404 {@code not found (this port
   * serves ...)} without being read. Requests on other connectors pass unchanged.
   */
  public static Handler only(Map<ServerConnector, PlainPort> ports, Handler next) {
    Map<ServerConnector, PlainPort> byConnector = Map.copyOf(ports);
    return new Handler.Wrapper(next) {
      @Override
      public boolean handle(Request request, Response response, Callback callback)
          throws Exception {
        PlainPort port = byConnector.get(request.getConnectionMetaData().getConnector());
        if (port == null || port.serves(request.getHttpURI().getPath())) {
          return super.handle(request, response, callback);
        }
        response.setStatus(404);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        Content.Sink.write(
            response,
            true,
            "not found (this port serves " + String.join(" and ", port.sorted()) + ")\n",
            callback);
        return true;
      }
    };
  }

  /** True for one of {@link #paths()}, with or without a trailing slash. */
  boolean serves(String path) {
    if (path == null) {
      return false;
    }
    String bare =
        path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    return paths.contains(bare);
  }

  private Set<String> sorted() {
    return new TreeSet<>(paths);
  }
}

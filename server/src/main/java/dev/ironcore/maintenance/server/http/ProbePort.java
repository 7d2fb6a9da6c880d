package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.tls.ConnectionCeiling;
import java.net.InetSocketAddress;
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
 * The health-probe port ({@code --health-probe-bind-address}, as controller-runtime names it):
 * {@code GET /healthz} and {@code /readyz} over plain HTTP/1.1 on a connector of their own, so that
 * kubelet's probes never wait behind webhook connections (the webhook port's {@code
 * --max-connections} does not count them). Every other path on this connector gets 404: reviews and
 * {@code /metrics} are served over HTTPS only. At most {@link #MAX_CONNECTIONS} connections are
 * open on it ({@link #ceiling}).
 */
public final class ProbePort {
  /**
   * Most open connections on the probe port: 8. The kubelet opens one connection per probe and
   * closes it after the answer (two probes per pod); without a limit, a client of this port could
   * fill the heap with connections that never finish their headers (measured with the shipped
   * settings: 5,000 connections that had each sent 7 KB of headers ended the JVM with {@code
   * OutOfMemoryError} within 10 s).
   */
  public static final int MAX_CONNECTIONS = 8;

  private ProbePort() {}

  /**
   * The limit of {@link #MAX_CONNECTIONS} open connections on {@code probes}, as {@link
   * ConnectionCeiling} enforces the webhook port's: further connections wait in the accept queue,
   * and at the limit connections with no request for 5 s are closed. Add it to the server as a
   * bean. Its events are logged (WARN, at most once a minute), not metered.
   */
  public static ConnectionCeiling ceiling(ServerConnector probes) {
    return new ConnectionCeiling(
        MAX_CONNECTIONS,
        new ConnectionCeiling.Limit("health-probe port", "fixed, for the kubelet's probes"),
        probes,
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
  public static ServerConnector connector(
      Server server, HttpConfiguration http, InetSocketAddress address) {
    ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setName("health-probes");
    connector.setHost(address.getAddress().getHostAddress());
    connector.setPort(address.getPort());
    return connector;
  }

  /**
   * Wraps the server's handler: requests that arrive on {@code probes} reach {@code next} only for
   * {@code /healthz} and {@code /readyz} (a trailing slash allowed); others get 404 {@code not
   * found} without being read.
   */
  public static Handler only(ServerConnector probes, Handler next) {
    return new Handler.Wrapper(next) {
      @Override
      public boolean handle(Request request, Response response, Callback callback)
          throws Exception {
        if (request.getConnectionMetaData().getConnector() != probes
            || isProbe(request.getHttpURI().getPath())) {
          return super.handle(request, response, callback);
        }
        response.setStatus(404);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        Content.Sink.write(
            response, true, "not found (this port serves /healthz and /readyz)\n", callback);
        return true;
      }
    };
  }

  static boolean isProbe(String path) {
    return switch (path == null ? "" : path) {
      case "/healthz", "/healthz/", "/readyz", "/readyz/" -> true;
      default -> false;
    };
  }
}

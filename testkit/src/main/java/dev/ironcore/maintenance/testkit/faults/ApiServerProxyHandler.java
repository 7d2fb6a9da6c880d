package dev.ironcore.maintenance.testkit.faults;

import java.time.Duration;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's streaming reverse proxy ({@link ProxyHandler.Reverse}) to the {@link Upstream} API
 * server: path and query unchanged, the client's {@code Authorization} replaced by the upstream's
 * identity (its client certificate on the TLS connection, or its bearer token). Responses stream,
 * so a watch stays open as long as the API server keeps it.
 */
final class ApiServerProxyHandler extends ProxyHandler.Reverse {
  /** Longer than any watch the API server keeps open (it ends them after 30–60 min). */
  static final Duration IDLE_TIMEOUT = Duration.ofHours(1);

  private final Upstream upstream;

  ApiServerProxyHandler(Upstream upstream) {
    super(
        request ->
            HttpURI.build(request.getHttpURI())
                .scheme(upstream.server().getScheme())
                .host(upstream.server().getHost())
                .port(upstream.server().getPort()));
    this.upstream = upstream;
  }

  @Override
  protected HttpClient newHttpClient() {
    SslContextFactory.Client tls = new SslContextFactory.Client();
    tls.setSslContext(upstream.tls());
    ClientConnector connector = new ClientConnector();
    connector.setSslContextFactory(tls);
    HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(connector));
    client.setMaxConnectionsPerDestination(512);
    client.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    return client;
  }

  @Override
  protected void copyRequestHeaders(
      Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
    super.copyRequestHeaders(clientToProxyRequest, proxyToServerRequest);
    proxyToServerRequest.headers(
        h -> {
          h.remove(HttpHeader.AUTHORIZATION);
          if (upstream.bearerToken() != null) {
            h.put(HttpHeader.AUTHORIZATION, "Bearer " + upstream.bearerToken());
          }
        });
  }
}

package dev.ironcore.maintenance.testkit.faults;

import java.time.Duration;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's streaming reverse proxy ({@link ProxyHandler.Reverse}) to the {@link Upstream} API
 * server: path and query unchanged, the client's {@code Authorization} replaced by the upstream's
 * identity (its client certificate on the TLS connection, or its bearer token). Responses stream,
 * so a watch stays open as long as the API server keeps it. A watch's response starts at once: its
 * headers and one space (whitespace before the first JSON event, which every decoder of the watch
 * stream skips) are sent as soon as the API server answers. Otherwise Jetty would hold the headers
 * until the first event, and fabric8's HTTP watch (the proxy does not tunnel WebSockets) counts a
 * watch as started only once body bytes arrive: a quiet watch (no Lease changes) would look "not
 * watching" for up to a minute, until the API server's first bookmark, where the production
 * WebSocket watch is started as soon as it opens.
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
  protected org.eclipse.jetty.client.Response.CompleteListener newServerToProxyResponseListener(
      Request clientToProxyRequest,
      org.eclipse.jetty.client.Request proxyToServerRequest,
      Response proxyToClientResponse,
      Callback proxyToClientCallback) {
    return new HeadersFirst(
        clientToProxyRequest, proxyToServerRequest, proxyToClientResponse, proxyToClientCallback);
  }

  /** Sends the response headers of a watch, and one space, before its first event. */
  private final class HeadersFirst extends ProxyResponseListener {
    private final boolean watch;
    private final Response proxyToClientResponse;

    HeadersFirst(
        Request clientToProxyRequest,
        org.eclipse.jetty.client.Request proxyToServerRequest,
        Response proxyToClientResponse,
        Callback proxyToClientCallback) {
      super(
          clientToProxyRequest, proxyToServerRequest, proxyToClientResponse, proxyToClientCallback);
      this.watch = FaultHandler.isWatch(clientToProxyRequest);
      this.proxyToClientResponse = proxyToClientResponse;
    }

    @Override
    public void onHeaders(org.eclipse.jetty.client.Response serverToProxyResponse) {
      super.onHeaders(serverToProxyResponse);
      if (!watch
          || serverToProxyResponse.getStatus() != 200
          || serverToProxyResponse.getHeaders().contains(HttpHeader.CONTENT_LENGTH)) {
        return;
      }
      // no content arrives before this returns, so this write cannot overlap another
      try (Blocker.Callback flushed = Blocker.callback()) {
        proxyToClientResponse.write(false, java.nio.ByteBuffer.wrap(new byte[] {' '}), flushed);
        flushed.block();
      } catch (java.io.IOException e) {
        proxyToClientResponse.getRequest().getConnectionMetaData().getConnection().close();
      }
    }
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

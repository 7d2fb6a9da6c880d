package dev.ironcore.maintenance.server.tls;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.http2.HTTP2Cipher;
import org.eclipse.jetty.http2.HTTP2Connection;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/** Builds Jetty HTTPS connectors that negotiate {@code h2} or {@code http/1.1} via ALPN. */
public final class HttpsConnectors {
  private HttpsConnectors() {}

  /**
   * HTTP/2 receive window of each stream: 64 KiB, the protocol's initial window (Jetty's default is
   * 512 KiB). Not less: a client may send 65,535 bytes of a stream before it has read the server's
   * SETTINGS, and Jetty 12.1 resets a stream that exceeds a smaller window at once ({@code
   * FLOW_CONTROL_ERROR}). With 16 KiB the API server's first review over 16 KiB on a new connection
   * failed: {@code kubectl apply} of a MachinePool of 1,000 taints (99 KB) got "failed calling
   * webhook ... FLOW_CONTROL_ERROR" with {@code make run}.
   */
  static final int STREAM_RECV_WINDOW_BYTES = 64 * 1024;

  /**
   * Most concurrent HTTP/2 streams per connection: 32 (Jetty's default is 128). What one connection
   * can make the server hold unread (streams whose bodies wait for room in the request-body budget,
   * {@code http.BodyBudget}) is this times {@link #STREAM_RECV_WINDOW_BYTES}: 2 MiB. With 128
   * streams of 64 KiB, ten connections of waiting 64 KiB bodies exhausted the 32 MiB of direct
   * memory and stalled the server (peak RSS 192 MiB). A client that opens more streams before it
   * has read the server's settings gets {@code REFUSED_STREAM} for the extra ones, which Go's
   * HTTP/2 client (the API server's) sends again; afterwards it keeps to the limit.
   */
  static final int MAX_CONCURRENT_STREAMS = 32;

  /**
   * Listen backlog of the webhook port: connections the kernel completes while the server accepts
   * none (a pause, a starved CPU, a burst of API server replicas reconnecting). Java's default is
   * 50, past which the kernel drops SYNs and the clients retry only after 1 s, 3 s, 7 s; Go's
   * listeners (controller-runtime's webhook server) take the kernel's {@code net.core.somaxconn},
   * 4096 since Linux 5.4, which also caps this value.
   */
  static final int ACCEPT_QUEUE_SIZE = 4096;

  /**
   * HTTP/2 receive window of a connection: twice room for all its streams (about 4 MiB). Jetty
   * gives a connection more window once half of it was read, so the half that waiting streams may
   * fill must never reach it: with Jetty's 1 MiB, two waiting 7 MB reviews stopped a third for the
   * whole wait.
   */
  static final int SESSION_RECV_WINDOW_BYTES =
      2 * (MAX_CONCURRENT_STREAMS + 1) * STREAM_RECV_WINDOW_BYTES;

  /**
   * Closes a TLS connection's engine both ways once the connection is closed, so that Conscrypt
   * frees its native SSL object (with it an internal pipe: two file descriptors) at once. A client
   * that left without a TLS close_notify left the engine open, and the descriptors stayed until a
   * garbage collection finalized it: a fresh-eyes check counted 2,000 after 1,000 connections.
   */
  static final class EngineRelease implements Connection.Listener {
    @Override
    public void onClosed(Connection connection) {
      if (connection instanceof SslConnection tls) {
        SSLEngine engine = tls.getSSLEngine();
        engine.closeOutbound();
        try {
          engine.closeInbound();
        } catch (SSLException e) {
          // "closed without close_notify": expected here, the connection is gone already
        }
      }
    }
  }

  /**
   * Hears of the TLS connections of a connector made by {@link #create} that their idle timeout
   * closes. A bean of the connector (as {@link ConnectionCeiling} makes itself) is asked.
   */
  interface IdleCloseListener {
    /**
     * Called as the idle timeout of a connection expires, before Jetty acts on it (on Jetty's
     * scheduler, or on a thread that shortened the idle timeout; must not block).
     *
     * @param network the connection's TCP end point, one of the connector's connected end points
     * @return whether to call {@link #onIdleClose} if the timeout closes the connection
     */
    boolean hearsOfIdleClose(EndPoint network);

    /**
     * Called, after {@link #hearsOfIdleClose} returned true, when the idle timeout closes the
     * connection (must not block): with nothing in flight Jetty closes an HTTP/1.1 connection (its
     * output at once, the rest when the client closes), an HTTP/2 one after a GOAWAY, one still in
     * its TLS handshake at once. Not called when the timeout leaves it open (an HTTP/1.1 request in
     * flight gets the timeout instead). The connection may have closed already.
     *
     * @param network the connection's TCP end point
     */
    void onIdleClose(EndPoint network);
  }

  /**
   * Makes {@link IdleReportingSslConnection}s, as Jetty's factory makes its {@link SslConnection}s.
   */
  static final class IdleReportingSslConnectionFactory extends SslConnectionFactory {
    IdleReportingSslConnectionFactory(SslContextFactory.Server tls, String nextProtocol) {
      super(tls, nextProtocol);
    }

    @Override
    protected SslConnection newSslConnection(
        Connector connector, EndPoint endPoint, SSLEngine engine) {
      return new IdleReportingSslConnection(
          connector,
          endPoint,
          engine,
          getSslContextFactory(),
          isDirectBuffersForEncryption(),
          isDirectBuffersForDecryption());
    }
  }

  /**
   * A TLS connection that tells its connector's {@link IdleCloseListener}s when its idle timeout
   * closes it (Jetty tells its connection listeners only that it closed, not why).
   */
  static final class IdleReportingSslConnection extends SslConnection {
    private final Connector connector;

    IdleReportingSslConnection(
        Connector connector,
        EndPoint endPoint,
        SSLEngine engine,
        SslContextFactory.Server tls,
        boolean directForEncryption,
        boolean directForDecryption) {
      super(
          connector.getByteBufferPool(),
          connector.getExecutor(),
          tls,
          endPoint,
          engine,
          directForEncryption,
          directForDecryption);
      this.connector = connector;
    }

    /**
     * Lets the connection speaking HTTP (or ALPN, during the handshake) decide as Jetty does, then
     * tells the listeners that asked when that closes the connection: it returns true (Jetty then
     * closes the end point), or it is HTTP/2 and closed its session (a GOAWAY, then the end point
     * closes).
     */
    @Override
    public boolean onIdleExpired(TimeoutException timeout) {
      EndPoint network = getEndPoint();
      List<IdleCloseListener> hearing = new ArrayList<>(1);
      for (IdleCloseListener listener : connector.getBeans(IdleCloseListener.class)) {
        if (listener.hearsOfIdleClose(network)) {
          hearing.add(listener);
        }
      }
      boolean close = super.onIdleExpired(timeout);
      if (close
          || getSslEndPoint().getConnection() instanceof HTTP2Connection h2
              && h2.getSession().isClosed()) {
        hearing.forEach(listener -> listener.onIdleClose(network));
      }
      return close;
    }
  }

  /**
   * @param server the Jetty server
   * @param base HTTP settings to copy (a {@link SecureRequestCustomizer} is added to the copy)
   * @param tls TLS settings, e.g. {@link ServingCertificate#sslContextFactory()}; its JCA provider
   *     is set here
   * @param provider {@link TlsProvider#CONSCRYPT} or {@link TlsProvider#JDK}, as {@link
   *     TlsProvider#resolve()} returns: the engines {@code tls} makes and the ALPN processor for
   *     them (the JDK's never touches Conscrypt)
   * @param host address to bind, e.g. {@code "0.0.0.0"}
   * @param port port to bind; 0 picks a free one
   * @return the connector (not yet started); ALPN prefers {@code h2}, falls back to {@code
   *     http/1.1} and uses {@code http/1.1} for clients without ALPN; its {@link IdleCloseListener}
   *     beans hear of connections that their idle timeout closes
   */
  public static ServerConnector create(
      Server server,
      HttpConfiguration base,
      SslContextFactory.Server tls,
      TlsProvider provider,
      String host,
      int port) {
    HttpConfiguration https = new HttpConfiguration(base);
    SecureRequestCustomizer secure = new SecureRequestCustomizer();
    // The client (the API server) verifies our identity; an SNI mismatch must not turn into 400s.
    secure.setSniHostCheck(false);
    https.addCustomizer(secure);
    tls.setCipherComparator(HTTP2Cipher.COMPARATOR);
    boolean conscrypt = provider == TlsProvider.CONSCRYPT;
    if (!conscrypt && provider != TlsProvider.JDK) {
      throw new IllegalArgumentException("resolve() the TLS provider first: " + provider);
    }
    tls.setProvider(conscrypt ? TlsProvider.CONSCRYPT_NAME : null);

    HttpConnectionFactory http1 = new HttpConnectionFactory(https);
    HTTP2ServerConnectionFactory http2 = new HTTP2ServerConnectionFactory(https);
    http2.setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS);
    http2.setInitialStreamRecvWindow(STREAM_RECV_WINDOW_BYTES);
    http2.setInitialSessionRecvWindow(SESSION_RECV_WINDOW_BYTES);
    AlpnConnectionFactory alpn = new AlpnConnectionFactory(conscrypt);
    alpn.setDefaultProtocol(http1.getProtocol());
    SslConnectionFactory ssl = new IdleReportingSslConnectionFactory(tls, alpn.getProtocol());

    // one selector thread per core, at most 4 (Jetty's default is half the cores): an HTTP/1.x
    // review is answered on its selector's thread (Routes), so the selectors are what uses the
    // cores
    int selectors = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    ServerConnector connector = new ServerConnector(server, -1, selectors, ssl, alpn, http2, http1);
    connector.addBean(new EngineRelease());
    connector.setHost(host);
    connector.setPort(port);
    connector.setAcceptQueueSize(ACCEPT_QUEUE_SIZE);
    return connector;
  }
}

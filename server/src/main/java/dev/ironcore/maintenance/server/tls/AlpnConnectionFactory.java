package dev.ironcore.maintenance.server.tls;

import java.util.List;
import javax.net.ssl.SSLEngine;
import org.eclipse.jetty.alpn.conscrypt.server.ConscryptServerALPNProcessor;
import org.eclipse.jetty.alpn.java.server.JDK9ServerALPNProcessor;
import org.eclipse.jetty.alpn.server.ALPNServerConnection;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.ALPNProcessor;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NegotiatingServerConnectionFactory;

/**
 * Jetty's ALPN negotiation (as its {@code ALPNServerConnectionFactory}) with the one ALPN processor
 * that fits the TLS provider, chosen here instead of by {@link java.util.ServiceLoader}: Jetty's
 * own factory initializes every processor on the class path, and the Conscrypt one loads
 * Conscrypt's native library, which {@code --tls-provider=jdk} must not do.
 *
 * <p>A client that offers only protocols the server does not speak ({@code curl --http1.0} offers
 * {@code http/1.0}) is negotiated as one without ALPN: Jetty throws inside Conscrypt's callback
 * otherwise, and Conscrypt then completed the handshake with the client's protocol and the server
 * dropped the connection without a word. With Conscrypt no protocol is acknowledged and the
 * connection speaks the default ({@code http/1.1}); the JDK's TLS, given a protocol the client did
 * not offer, refuses the handshake with a fatal alert (as Go's servers do).
 */
final class AlpnConnectionFactory extends NegotiatingServerConnectionFactory {
  private final ALPNProcessor.Server processor;

  /**
   * @param conscrypt whether the TLS engines are Conscrypt's ({@link TlsProvider#resolve()} chose
   *     it); else the JDK's
   * @param protocols the protocols offered, most preferred first, e.g. {@code h2}, {@code http/1.1}
   */
  AlpnConnectionFactory(boolean conscrypt, String... protocols) {
    super("alpn", protocols);
    processor = conscrypt ? new ConscryptServerALPNProcessor() : new JDK9ServerALPNProcessor();
    processor.init();
  }

  @Override
  protected AbstractConnection newServerConnection(
      Connector connector,
      EndPoint endPoint,
      SSLEngine engine,
      List<String> protocols,
      String defaultProtocol) {
    if (!processor.appliesTo(engine)) {
      throw new IllegalStateException(
          "no ALPN processor for " + engine.getClass().getName() + " (" + processor + ")");
    }
    ALPNServerConnection connection =
        new ALPNServerConnection(connector, endPoint, engine, protocols, defaultProtocol) {
          /** Only the client's protocols we speak: none is negotiated as no ALPN at all. */
          @Override
          public void select(List<String> clientProtocols) {
            super.select(clientProtocols.stream().filter(getProtocols()::contains).toList());
          }
        };
    processor.configure(engine, connection);
    return connection;
  }
}

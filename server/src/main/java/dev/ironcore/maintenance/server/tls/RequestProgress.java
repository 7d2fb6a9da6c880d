package dev.ironcore.maintenance.server.tls;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The requests of one HTTP connection (HTTP/1.1 or HTTP/2, after TLS): how many are in flight and
 * when the last one began or ended. Bytes do not count: a client that sends a byte of a request
 * line every few seconds, or only HTTP/2 PINGs, makes no request. {@link ConnectionCeiling} uses it
 * to close, while at the limit, connections that hold a place without making requests.
 *
 * <p>Attached to a connection as an attribute when the connection opens ({@link #attach}); updated
 * by {@link #tracking(Handler)} around every request: an attribute look-up and two atomic updates
 * per request.
 */
public final class RequestProgress {
  /** Name of the connection attribute holding a connection's {@code RequestProgress}. */
  public static final String ATTRIBUTE = RequestProgress.class.getName();

  private final LongSupplier nanoTime;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile long lastNanos;

  RequestProgress(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.lastNanos = nanoTime.getAsLong();
  }

  /** Requests handed to the handler and not yet completed. */
  public int inFlight() {
    return inFlight.get();
  }

  /** {@link System#nanoTime()} when the last request began or ended (or the connection opened). */
  public long lastNanos() {
    return lastNanos;
  }

  void begin() {
    inFlight.incrementAndGet();
    lastNanos = nanoTime.getAsLong();
  }

  void end() {
    lastNanos = nanoTime.getAsLong();
    inFlight.decrementAndGet();
  }

  /**
   * Attaches a fresh {@code RequestProgress} to an HTTP connection when it opens (before any of its
   * requests); other connections (TLS, ALPN negotiation) are left alone.
   */
  static void attach(Connection connection, LongSupplier nanoTime) {
    if (connection instanceof ConnectionMetaData http) {
      http.setAttribute(ATTRIBUTE, new RequestProgress(nanoTime));
    }
  }

  /**
   * The progress of the HTTP connection under a network connection: through TLS to the connection
   * that speaks HTTP.
   *
   * @param network the connection of a network end point, e.g. {@link SslConnection}
   * @return null while the connection speaks no HTTP yet (TLS handshake, ALPN) or was opened before
   *     tracking began
   */
  static RequestProgress of(Connection network) {
    Connection c = network;
    while (c instanceof SslConnection tls) {
      c = tls.getSslEndPoint().getConnection();
    }
    return c instanceof ConnectionMetaData http
            && http.getAttribute(ATTRIBUTE) instanceof RequestProgress progress
        ? progress
        : null;
  }

  /**
   * Wraps the server's handler so that every request counts as progress of its connection from when
   * it is handed to {@code next} until its callback completes.
   */
  public static Handler tracking(Handler next) {
    return new Handler.Wrapper(next) {
      @Override
      public boolean handle(Request request, Response response, Callback callback)
          throws Exception {
        if (!(request.getConnectionMetaData().getAttribute(ATTRIBUTE)
            instanceof RequestProgress progress)) {
          return super.handle(request, response, callback);
        }
        progress.begin();
        boolean handled = false;
        try {
          handled = super.handle(request, response, Callback.from(callback, progress::end));
          return handled;
        } finally {
          if (!handled) {
            progress.end();
          }
        }
      }
    };
  }
}

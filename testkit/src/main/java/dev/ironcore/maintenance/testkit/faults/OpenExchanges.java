package dev.ironcore.maintenance.testkit.faults;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.Callback;

/**
 * The requests a {@link FaultProxy} is forwarding right now, each with the client connection it
 * came on, so that {@link #cut} can close the connections of some of them (a watch stream ends for
 * the client as when a load balancer or a restarting API server drops it). Thread-safe.
 */
final class OpenExchanges {

  /** One forwarded request: its client connection and whether it is a watch. */
  record Exchange(EndPoint endPoint, boolean watch) {}

  private final Set<Exchange> open = ConcurrentHashMap.newKeySet();

  /**
   * Registers an exchange until {@code callback} completes.
   *
   * @return the callback to hand on, which unregisters the exchange, then completes {@code
   *     callback}
   */
  Callback track(Exchange exchange, Callback callback) {
    open.add(exchange);
    return new Callback() {
      @Override
      public void succeeded() {
        open.remove(exchange);
        callback.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        open.remove(exchange);
        callback.failed(x);
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }

  /**
   * Closes the client connection of every open exchange that {@code which} selects (abruptly: no
   * more bytes, then TCP close).
   *
   * @return the exchanges whose connection was closed
   */
  Set<Exchange> cut(Predicate<Exchange> which) {
    Set<Exchange> cut = ConcurrentHashMap.newKeySet();
    for (Exchange e : open) {
      if (which.test(e) && open.remove(e)) {
        e.endPoint().close();
        cut.add(e);
      }
    }
    return cut;
  }

  /** How many watches are open now. */
  int openWatches() {
    return (int) open.stream().filter(Exchange::watch).count();
  }
}

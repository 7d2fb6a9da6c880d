package dev.ironcore.maintenance.testkit.faults;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The proxy's first handler: counts each request, answers the planned error ({@link
 * ErrorInjection}) instead of forwarding, answers a WebSocket upgrade with 200 without upgrading
 * (the fabric8 client then watches over plain HTTP, its fallback for proxies without WebSocket
 * support), and registers every forwarded request in {@link OpenExchanges} so it can be cut.
 */
final class FaultHandler extends Handler.Wrapper {
  private final ErrorInjection errors;
  private final OpenExchanges exchanges;
  private final FaultCounters counters;
  private final java.util.function.LongSupplier frozenUntil;
  private final java.util.function.Predicate<String> frozenPath;

  /**
   * @param frozenUntil {@link System#nanoTime()} until which requests are held before being handled
   *     (a frozen API server), or a time in the past
   * @param frozenPath which request paths (e.g. {@code /apis/coordination.k8s.io/v1/...}) a freeze
   *     holds
   */
  FaultHandler(
      Handler proxy,
      ErrorInjection errors,
      OpenExchanges exchanges,
      FaultCounters counters,
      java.util.function.LongSupplier frozenUntil,
      java.util.function.Predicate<String> frozenPath) {
    super(proxy);
    this.frozenPath = frozenPath;
    this.errors = errors;
    this.exchanges = exchanges;
    this.counters = counters;
    this.frozenUntil = frozenUntil;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    counters.request();
    // frozen: the request waits unanswered, as behind a SIGSTOPped kube-apiserver; a thaw
    // (freeze(ZERO), as SIGCONT) answers it within 50 ms (it slept out the whole first freeze, so a
    // request sent while frozen stayed unanswered after the thaw: a flaky TwoClustersE2ETest)
    boolean held = frozenPath.test(String.valueOf(request.getHttpURI().getPath()));
    for (long left; held && (left = frozenUntil.getAsLong() - System.nanoTime()) > 0; ) {
      Thread.sleep(Math.max(1, Math.min(50, left / 1_000_000)));
    }
    ErrorInjection.Plan fault = errors.decide();
    if (fault != null) {
      counters.injected(fault.status());
      StatusReply.write(response, callback, fault.status(), fault.retryAfter().toSeconds());
      return true;
    }
    if (request.getHeaders().contains(HttpHeader.UPGRADE)) {
      counters.upgradeRefused();
      response.setStatus(200);
      response.write(true, null, callback);
      return true;
    }
    boolean watch = isWatch(request);
    if (watch) {
      counters.watchOpened();
    }
    OpenExchanges.Exchange exchange =
        new OpenExchanges.Exchange(
            request.getConnectionMetaData().getConnection().getEndPoint(), watch);
    return super.handle(request, response, exchanges.track(exchange, callback));
  }

  /** A Kubernetes watch: {@code ?watch=true} (or {@code 1}), or the legacy {@code /watch/} path. */
  static boolean isWatch(Request request) {
    String path = request.getHttpURI().getPath();
    if (path != null && path.contains("/watch/")) {
      return true;
    }
    Fields query = Request.extractQueryParameters(request);
    String watch = query.getValue("watch");
    return "true".equalsIgnoreCase(watch) || "1".equals(watch);
  }
}

package dev.ironcore.maintenance.testkit.faults;

import java.nio.file.Path;
import java.time.Duration;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injecting HTTPS proxy between one client (the controller process under test) and a real
 * API server, for faults a real API server cannot produce on demand. TEST SUPPORT ONLY, never
 * shipped.
 *
 * <p>It terminates TLS with a certificate of its own ({@link ProxyIdentity}), forwards every
 * request unchanged with Jetty's streaming {@code ProxyHandler} as the admin of the given
 * kubeconfig ({@link ApiServerProxyHandler}), and offers these faults:
 *
 * <ul>
 *   <li>{@link #cutWatches()}: closes the client connection of every open watch ({@code
 *       watch=true}), as a load balancer or a restarting API server does; other requests go on;
 *   <li>{@link #cutAll()}: closes every client connection with a request in flight;
 *   <li>{@link #failWith(int, Duration, double)}: answers 429 (with {@code Retry-After}) or 500,
 *       with a Kubernetes {@code Status} body, to all or a fraction of requests for a while;
 *   <li>{@link #freeze(Duration)}: holds every new request unanswered for a while;
 * </ul>
 *
 * <p>and counts what it did ({@link #counters()}), so a test can assert the faults happened. It
 * speaks HTTP/1.1 (one connection per watch) and does not tunnel WebSocket upgrades: it answers
 * them 200 without upgrading, upon which the fabric8 client watches over plain HTTP streaming (its
 * fallback for proxies such as {@code kubectl proxy}).
 */
public final class FaultProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);

  /** The {@code Retry-After} of a 429, as the API server's priority and fairness sends. */
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

  private final Server server;
  private final ErrorInjection errors = new ErrorInjection();
  private final OpenExchanges exchanges = new OpenExchanges();
  private final FaultCounters counters = new FaultCounters();
  private final java.util.concurrent.atomic.AtomicLong frozenUntil =
      new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
  private volatile java.util.function.Predicate<String> frozenPaths = path -> true;
  private final Path kubeconfig;
  private final String url;

  private FaultProxy(Upstream upstream, Path workDir) throws Exception {
    ProxyIdentity identity = ProxyIdentity.generate();
    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setName("fault-proxy");
    threads.setDaemon(true);
    server = new Server(threads);
    SslContextFactory.Server tls = new SslContextFactory.Server();
    tls.setSslContext(identity.serverTls());
    ServerConnector connector =
        new ServerConnector(
            server,
            new SslConnectionFactory(tls, "http/1.1"),
            new HttpConnectionFactory(new HttpConfiguration()));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setIdleTimeout(ApiServerProxyHandler.IDLE_TIMEOUT.toMillis());
    server.addConnector(connector);
    server.setHandler(
        new FaultHandler(
            new ApiServerProxyHandler(upstream),
            errors,
            exchanges,
            counters,
            frozenUntil::get,
            path -> frozenPaths.test(path)));
    server.start();
    url = "https://127.0.0.1:" + connector.getLocalPort();
    kubeconfig = workDir.resolve("fault-proxy-kubeconfig");
    identity.writeKubeconfig(kubeconfig, url);
    LOG.info("fault proxy {} -> {} (kubeconfig {})", url, upstream.server(), kubeconfig);
  }

  /**
   * Starts a proxy on a free loopback port in front of the API server of {@code adminKubeconfig}.
   *
   * @param adminKubeconfig a kubeconfig with cluster-admin rights (e.g. the local control plane's)
   * @param workDir where the proxy's kubeconfig is written ({@code fault-proxy-kubeconfig})
   * @throws IllegalStateException if the server cannot start
   */
  public static FaultProxy start(Path adminKubeconfig, Path workDir) {
    try {
      return new FaultProxy(Upstream.fromKubeconfig(adminKubeconfig), workDir);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the fault proxy", e);
    }
  }

  /** A kubeconfig pointing at this proxy (trusting its CA, no credentials of its own). */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The proxy's base URL, e.g. {@code https://127.0.0.1:40123}. */
  public String url() {
    return url;
  }

  /** What the proxy saw and did so far. */
  public FaultCounters counters() {
    return counters;
  }

  /** Watches open right now. */
  public int openWatches() {
    return exchanges.openWatches();
  }

  /**
   * Closes the client connection of every open watch; the clients see their watch stream end.
   *
   * @return how many watches were cut
   */
  public int cutWatches() {
    int n = exchanges.cut(OpenExchanges.Exchange::watch).size();
    for (int i = 0; i < n; i++) {
      counters.watchCut();
    }
    return n;
  }

  /**
   * Closes every client connection with a request in flight (watches and others).
   *
   * @return how many requests were cut
   */
  public int cutAll() {
    var cut = exchanges.cut(e -> true);
    for (var e : cut) {
      counters.connectionCut();
      if (e.watch()) {
        counters.watchCut();
      }
    }
    return cut.size();
  }

  /**
   * From now on, for {@code duration}, answers every request with {@code status} instead of
   * forwarding it (429 with {@code Retry-After} {@link #DEFAULT_RETRY_AFTER}); replaces an earlier
   * plan. Open watches are not touched (cut them to make clients reconnect into the errors).
   */
  public void failWith(int status, Duration duration) {
    failWith(status, duration, 1.0);
  }

  /**
   * As {@link #failWith(int, Duration)}, for a random {@code fraction} of requests (0 to 1).
   *
   * @throws IllegalArgumentException if status is not 4xx/5xx or fraction not in [0, 1]
   */
  public void failWith(int status, Duration duration, double fraction) {
    errors.set(status, duration, fraction, DEFAULT_RETRY_AFTER);
    LOG.info(
        "fault proxy: answering {} to {}% of requests for {}", status, fraction * 100, duration);
  }

  /**
   * From now on, for {@code duration}, holds every new request unanswered (the connection stays
   * open, nothing is forwarded), then forwards them: what clients see of a kube-apiserver that was
   * SIGSTOPped and continued, or of a network path that went silent. Open watches are not touched.
   * Each held request takes one of the proxy's 64 threads.
   */
  public void freeze(Duration duration) {
    frozenPaths = path -> true;
    frozenUntil.set(System.nanoTime() + duration.toNanos());
    LOG.info("fault proxy: holding every request unanswered for {}", duration);
  }

  /**
   * As {@link #freeze(Duration)}, only for new requests whose path starts with {@code pathPrefix}
   * (e.g. {@code /apis/compute.ironcore.dev/v1alpha2/machines}: one resource's lists and watches
   * hang, everything else is answered); replaces an earlier freeze.
   */
  public void freeze(Duration duration, String pathPrefix) {
    frozenPaths = path -> path.startsWith(pathPrefix);
    frozenUntil.set(System.nanoTime() + duration.toNanos());
    LOG.info("fault proxy: holding requests to {}* unanswered for {}", pathPrefix, duration);
  }

  /** True while a {@link #freeze} holds requests. */
  public boolean frozen() {
    return frozenUntil.get() - System.nanoTime() > 0;
  }

  /** True while an error plan of {@link #failWith} applies. */
  public boolean failing() {
    return errors.active();
  }

  /** Forwards every request again. */
  public void stopFailing() {
    errors.clear();
  }

  /** Stops the server; open connections are closed. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.debug("stopping the fault proxy", e);
    }
    LOG.info("fault proxy {} stopped: {}", url, counters);
  }
}

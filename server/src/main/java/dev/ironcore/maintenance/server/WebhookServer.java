package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.process.BindAddress;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.http.BodyBudget;
import dev.ironcore.maintenance.server.http.HealthEndpoints;
import dev.ironcore.maintenance.server.http.MeteredEndpoint;
import dev.ironcore.maintenance.server.http.MetricsEndpoint;
import dev.ironcore.maintenance.server.http.PlainErrors;
import dev.ironcore.maintenance.server.http.PlainPort;
import dev.ironcore.maintenance.server.http.Routes;
import dev.ironcore.maintenance.server.metrics.WebhookMetrics;
import dev.ironcore.maintenance.server.tls.ConnectionCeiling;
import dev.ironcore.maintenance.server.tls.HttpsConnectors;
import dev.ironcore.maintenance.server.tls.RequestProgress;
import dev.ironcore.maintenance.server.tls.ServingCertificate;
import dev.ironcore.maintenance.server.tls.TlsProvider;
import dev.ironcore.maintenance.server.warning.BoundMachines;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS admission and conversion webhook server: Jetty's core handler API (no servlet
 * container; {@link Routes}) with one TLS connector (TLS 1.2+, ALPN {@code h2} and {@code
 * http/1.1}; at most {@link WebhookServerConfig#maxConnections()} connections, see {@link
 * ConnectionCeiling}), optionally plain-HTTP connectors for the health probes and for {@code
 * /metrics} ({@link PlainPort}), and a graceful stop that lets requests in flight finish. Routes:
 * POST {@link AdmissionRoutes} paths and {@link AdmissionRoutes#CONVERT}, GET {@code /healthz},
 * {@code /readyz} and {@code /metrics} (Prometheus text format, meters listed in {@link
 * WebhookMetrics}, each server with its own registry). The certificate is re-read from its PEM
 * files periodically. One instance serves once: {@link #start(int)}, then {@link #stop()}.
 */
public final class WebhookServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);

  /**
   * How long {@link #stop()} lets requests in flight finish (Jetty graceful stop) before it closes
   * the connections. The Deployment's {@code terminationGracePeriodSeconds} must be longer.
   */
  public static final java.time.Duration IN_FLIGHT_DRAIN = java.time.Duration.ofSeconds(10);

  private final WebhookServerConfig config;
  private final BoundMachines boundMachines;
  private Server app;
  private ServingCertificate certificate;
  private PrometheusMeterRegistry registry;
  private ScheduledExecutorService reloader;
  private int port = -1;
  private int healthProbePort = -1;
  private int metricsPort = -1;

  /**
   * @param config settings; the certificate is read on {@link #start(int)}
   */
  public WebhookServer(WebhookServerConfig config) {
    this(config, BoundMachines.NONE);
  }

  /**
   * @param config settings; the certificate is read on {@link #start(int)}
   * @param boundMachines where the MachinePool webhook looks up bound Machines for its eviction
   *     warnings (an in-memory cache; never a blocking call)
   */
  public WebhookServer(WebhookServerConfig config, BoundMachines boundMachines) {
    this.config = Objects.requireNonNull(config, "config");
    this.boundMachines = Objects.requireNonNull(boundMachines, "boundMachines");
  }

  /**
   * Loads the certificate and starts listening.
   *
   * @param port TCP port; 0 picks a free one
   * @return the port actually bound
   * @throws IllegalStateException when already started, or Jetty cannot bind, or {@link
   *     TlsProvider#CONSCRYPT} was asked for and its native library does not load here
   * @throws java.io.UncheckedIOException when a PEM file cannot be read
   * @throws IllegalArgumentException when the PEM files are malformed or do not belong together, or
   *     the health-probe or metrics bind address is not one of this machine
   */
  public synchronized int start(int port) {
    if (app != null) {
      throw new IllegalStateException("already started");
    }
    Optional<InetSocketAddress> probeAddress = BindAddress.parse(config.healthProbeBindAddress());
    Optional<InetSocketAddress> metricsAddress = BindAddress.parse(config.metricsBindAddress());
    Map<String, AdmissionHandler> admissionRoutes =
        AdmissionRoutes.create(config.capiMachineSelector(), boundMachines);
    // compiles the review path on the other core while TLS and Jetty are set up (WarmUp)
    long warmUpStart = System.nanoTime();
    Thread warmUp = WarmUp.inBackground(admissionRoutes, WarmUp.ROUNDS);
    TlsProvider tlsProvider = config.tlsProvider().resolve();
    ServingCertificate served =
        ServingCertificate.load(
            config.certFile(),
            config.keyFile(),
            java.time.Clock.systemUTC(),
            config.certificateExpiryWarning());
    certificate = served;
    HealthEndpoints health = new HealthEndpoints(served);
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WebhookMetrics metrics = new WebhookMetrics(prometheus);
    metrics.bindJvmMeters();
    metrics.servingCertificateExpiry(() -> served.current().getNotAfter().toInstant());
    metrics.servingCertificateExpiresSoon(served::expiresSoon, served.expiryWarning());
    metrics.servingCertificateReloadFailing(() -> served.reloadProblem().isPresent());
    Routes routes =
        new Routes(BodyBudget.forHeap(Runtime.getRuntime().maxMemory()), metrics::answeredEarly);
    admissionRoutes.forEach(
        (path, handler) -> routes.post(path, MeteredEndpoint.admission(path, handler, metrics)));
    routes.post(
        AdmissionRoutes.CONVERT, MeteredEndpoint.conversion(AdmissionRoutes.CONVERT, metrics));
    routes.get("/healthz", health::healthz);
    routes.get("/readyz", health::readyz);
    routes.get("/metrics", new MetricsEndpoint(prometheus::scrape));
    // request threads with deep stacks: writing a 10,000-level object recurses
    Server jetty = new Server(threadPool(config.maxThreads()));
    // what Jetty refuses itself (a 431, an ambiguous path) is text/plain too, not an HTML page
    jetty.setErrorHandler(new PlainErrors());
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    ServerConnector connector =
        HttpsConnectors.create(
            jetty, http, served.sslContextFactory(), tlsProvider, config.bindAddress(), port);
    jetty.addConnector(connector);
    Map<ServerConnector, PlainPort> plainPorts = new java.util.LinkedHashMap<>();
    ServerConnector probes = plainPort(jetty, http, PlainPort.PROBES, probeAddress, plainPorts);
    ServerConnector metricsPlain =
        plainPort(jetty, http, PlainPort.METRICS, metricsAddress, plainPorts);
    ConnectionCeiling ceiling =
        new ConnectionCeiling(
            config.maxConnections(),
            new ConnectionCeiling.Limit("webhook server", "--max-connections"),
            connector,
            metrics::connectionLimitReached,
            metrics::connectionClosedWithoutRequest);
    jetty.addBean(ceiling);
    metrics.connections(ceiling::getNetworkConnectionCount, config.maxConnections());
    // stop() lets requests in flight finish for up to IN_FLIGHT_DRAIN, refusing new ones
    Handler handler = RequestProgress.tracking(routes);
    jetty.setHandler(
        new GracefulHandler(plainPorts.isEmpty() ? handler : PlainPort.only(plainPorts, handler)));
    jetty.setStopTimeout(IN_FLIGHT_DRAIN.toMillis());
    WarmUp.awaitAtMost(warmUp, warmUpStart, WarmUp.MAX_WAIT);
    try {
      jetty.start();
    } catch (Exception e) {
      stopQuietly(jetty);
      prometheus.close();
      throw new IllegalStateException(
          "cannot start webhook server on "
              + config.bindAddress()
              + ":"
              + port
              + plainPorts.values().stream()
                  .map(p -> " (" + p.title() + " on " + bindAddressOf(p) + ")")
                  .collect(java.util.stream.Collectors.joining())
              + ": "
              + (plainPorts.isEmpty() ? "" : failedListener(e))
              + rootCause(e),
          e);
    }
    app = jetty;
    registry = prometheus;
    this.port = connector.getLocalPort();
    this.healthProbePort = probes == null ? -1 : probes.getLocalPort();
    this.metricsPort = metricsPlain == null ? -1 : metricsPlain.getLocalPort();
    startReloading();
    LOG.info(
        "webhook server listening on https://{}:{} (paths {}, {}, /healthz, /readyz, /metrics; "
            + "CAPI Machine selector \"{}\"; at most {} connections; TLS {})",
        urlHost(config.bindAddress()),
        this.port,
        admissionRoutes.keySet(),
        AdmissionRoutes.CONVERT,
        config.capiMachineSelector(),
        config.maxConnections(),
        config.tlsProvider().describe());
    LOG.info("serving certificate {}", served.describe());
    if (probes != null) {
      LOG.info(
          "health probes /healthz and /readyz also on http://{}:{} (--health-probe-bind-address)",
          urlHost(probes.getHost()),
          healthProbePort);
    }
    if (metricsPlain != null) {
      LOG.info(
          "/metrics also on http://{}:{} (--metrics-bind-address)",
          urlHost(metricsPlain.getHost()),
          metricsPort);
    }
    return this.port;
  }

  /**
   * @return the bound port; -1 before {@link #start(int)}
   */
  public synchronized int port() {
    return port;
  }

  /**
   * @return the bound port of the plain-HTTP health probes; -1 before {@link #start(int)} or when
   *     {@link WebhookServerConfig#healthProbeBindAddress()} is {@code "0"}
   */
  public synchronized int healthProbePort() {
    return healthProbePort;
  }

  /**
   * @return the bound port of the plain-HTTP {@code /metrics}; -1 before {@link #start(int)} or
   *     when {@link WebhookServerConfig#metricsBindAddress()} is {@code "0"}
   */
  public synchronized int metricsPort() {
    return metricsPort;
  }

  /** Adds {@code port}'s connector and its connection limit when {@code address} is present. */
  private static ServerConnector plainPort(
      Server jetty,
      HttpConfiguration http,
      PlainPort port,
      Optional<InetSocketAddress> address,
      Map<ServerConnector, PlainPort> added) {
    if (address.isEmpty()) {
      return null;
    }
    ServerConnector connector = port.connector(jetty, http, address.get());
    jetty.addConnector(connector);
    jetty.addBean(port.ceiling(connector));
    added.put(connector, port);
    return connector;
  }

  private String bindAddressOf(PlainPort port) {
    return port == PlainPort.PROBES ? config.healthProbeBindAddress() : config.metricsBindAddress();
  }

  /**
   * @return the served certificate and its health; null before {@link #start(int)}
   */
  public synchronized ServingCertificate certificate() {
    return certificate;
  }

  /**
   * Stops listening, the certificate reloader and the meters. Safe to call twice or before start.
   */
  public synchronized void stop() {
    if (reloader != null) {
      reloader.shutdownNow();
      reloader = null;
    }
    if (app != null) {
      stopQuietly(app);
      app = null;
      LOG.info("webhook server on port {} stopped", port);
    }
    if (registry != null) {
      registry.close();
      registry = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  private static void stopQuietly(Server jetty) {
    try {
      jetty.stop();
    } catch (Exception e) {
      LOG.warn("webhook server did not stop cleanly: {}", e.toString());
    }
  }

  private static QueuedThreadPool threadPool(int maxThreads) {
    QueuedThreadPool pool =
        new QueuedThreadPool(
            maxThreads,
            Math.min(4, maxThreads),
            60_000,
            -1,
            null,
            null,
            dev.ironcore.maintenance.api.json.DeepStacks.threadFactory("webhook"));
    pool.setName("webhook");
    return pool;
  }

  private void startReloading() {
    long millis = config.certificateReloadInterval().toMillis();
    if (millis <= 0) {
      return;
    }
    reloader =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "certificate-reloader");
              t.setDaemon(true);
              return t;
            });
    ServingCertificate watched = certificate;
    reloader.scheduleWithFixedDelay(
        watched::reloadIfChanged, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Which of two listeners could not be opened, from Jetty's {@code Failed to bind to
   * host/address:port} in {@code e}'s causes: {@code "address:port: "}, or {@code ""} when none
   * says.
   */
  static String failedListener(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && message.startsWith(FAILED_TO_BIND)) {
        String address = message.substring(FAILED_TO_BIND.length()).strip();
        return address.substring(address.lastIndexOf('/') + 1) + ": ";
      }
    }
    return "";
  }

  private static final String FAILED_TO_BIND = "Failed to bind to ";

  /**
   * The innermost message of a start failure: Jetty wraps a bind failure ("Failed to bind to ..."),
   * while the socket's own {@link java.net.BindException} says what happened ("Address already in
   * use", "Cannot assign requested address").
   */
  static String rootCause(Throwable e) {
    String message = e.getMessage();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        message = t.getMessage();
      }
      if (t instanceof java.net.BindException) {
        break;
      }
    }
    return message;
  }

  /** {@code host} as it stands in a URL: an IPv6 literal in brackets ({@code [::1]}). */
  static String urlHost(String host) {
    return host != null && host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }
}

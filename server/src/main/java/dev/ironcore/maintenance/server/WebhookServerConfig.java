package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.server.tls.TlsProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link WebhookServer}.
 *
 * @param certFile PEM serving certificate chain, leaf first
 * @param keyFile PEM private key of the leaf
 * @param bindAddress address to listen on, e.g. {@code "0.0.0.0"} or {@code "127.0.0.1"}
 * @param capiMachineSelector which CAPI Machines to mutate; {@link LabelSelector#everything()} for
 *     all
 * @param certificateReloadInterval how often the PEM files are checked for changes; zero disables
 * @param certificateExpiryWarning warn (log and metric) when the serving certificate expires within
 *     this window; zero disables
 * @param maxThreads most Jetty request threads ({@link #MIN_THREADS} to {@link #MAX_THREADS});
 *     {@link #DEFAULT_MAX_THREADS} unless set
 * @param tlsProvider which TLS implementation serves the HTTPS connections ({@code --tls-provider})
 * @param maxConnections most open TCP connections (at least 1; {@code --max-connections}); {@link
 *     #DEFAULT_MAX_CONNECTIONS} unless set
 * @param healthProbeBindAddress where {@code /healthz} and {@code /readyz} are also served over
 *     plain HTTP, in controller-runtime's notation ({@code :8081}, {@code 127.0.0.1:0}); {@code
 *     "0"} (the default) for nowhere but the HTTPS port ({@code --health-probe-bind-address})
 * @param metricsBindAddress where {@code /metrics} is also served over plain HTTP, in the same
 *     notation ({@code :8080}); {@code "0"} (the default) for nowhere but the HTTPS port ({@code
 *     --metrics-bind-address})
 */
public record WebhookServerConfig(
    Path certFile,
    Path keyFile,
    String bindAddress,
    LabelSelector capiMachineSelector,
    Duration certificateReloadInterval,
    Duration certificateExpiryWarning,
    int maxThreads,
    TlsProvider tlsProvider,
    int maxConnections,
    String healthProbeBindAddress,
    String metricsBindAddress) {

  /** Default {@link #certificateReloadInterval()}: 10 seconds. */
  public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(10);

  /**
   * Default {@link #maxThreads()}: 16. Each admission takes tens of microseconds, so a few threads
   * keep two cores busy (measured by {@code make bench}); Jetty's own default is 200.
   */
  public static final int DEFAULT_MAX_THREADS = 16;

  /**
   * Smallest {@link #maxThreads()}: Jetty reserves threads for its acceptor and selectors, and
   * refuses to start with fewer than it needs.
   */
  public static final int MIN_THREADS = 8;

  /**
   * Largest {@link #maxThreads()}: 1,000. Reviews are answered in about 0.1 ms of CPU and never
   * wait for a body (read as it arrives), so more threads only add stacks (512 KiB reserved each
   * with the shipped {@code -Xss512k}) and contention; a typo such as {@code 160000} would let a
   * burst of slow clients grow the process past its memory limit.
   */
  public static final int MAX_THREADS = 1000;

  /**
   * Default {@link #maxConnections()}: 256. The API server sends its reviews over a few HTTP/2
   * connections (one per API server, another per 32 concurrent reviews) and probes and scrapes open
   * a few more; 256 idle or half-sent TLS connections cost the shipped server about 10–20 MiB
   * (measured: 1,000 took it from 109 to 143–194 MiB RSS).
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 256;

  public WebhookServerConfig {
    Objects.requireNonNull(certFile, "certFile");
    Objects.requireNonNull(keyFile, "keyFile");
    Objects.requireNonNull(bindAddress, "bindAddress");
    Objects.requireNonNull(capiMachineSelector, "capiMachineSelector");
    Objects.requireNonNull(certificateReloadInterval, "certificateReloadInterval");
    Objects.requireNonNull(certificateExpiryWarning, "certificateExpiryWarning");
    Objects.requireNonNull(tlsProvider, "tlsProvider");
    Objects.requireNonNull(healthProbeBindAddress, "healthProbeBindAddress");
    Objects.requireNonNull(metricsBindAddress, "metricsBindAddress");
    if (certificateExpiryWarning.isNegative()) {
      throw new IllegalArgumentException("certificateExpiryWarning must not be negative");
    }
    if (certificateReloadInterval.isNegative()) {
      throw new IllegalArgumentException("certificateReloadInterval must not be negative");
    }
    if (maxThreads < MIN_THREADS || maxThreads > MAX_THREADS) {
      throw new IllegalArgumentException(
          "maxThreads must be from " + MIN_THREADS + " to " + MAX_THREADS + ", got " + maxThreads);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "maxConnections must be at least 1, got " + maxConnections);
    }
  }

  /** Default {@link #certificateExpiryWarning()}: 30 days. */
  public static final Duration DEFAULT_EXPIRY_WARNING = Duration.ofDays(30);

  /**
   * @return settings listening on all addresses, mutating every CAPI Machine, checking the files
   *     every {@link #DEFAULT_RELOAD_INTERVAL}, warning {@link #DEFAULT_EXPIRY_WARNING} before
   *     expiry, with {@link #DEFAULT_MAX_THREADS} request threads and at most {@link
   *     #DEFAULT_MAX_CONNECTIONS} connections
   */
  public static WebhookServerConfig of(Path certFile, Path keyFile) {
    return new WebhookServerConfig(
        certFile,
        keyFile,
        "0.0.0.0",
        LabelSelector.everything(),
        DEFAULT_RELOAD_INTERVAL,
        DEFAULT_EXPIRY_WARNING,
        DEFAULT_MAX_THREADS,
        TlsProvider.AUTO,
        DEFAULT_MAX_CONNECTIONS,
        "0",
        "0");
  }

  /**
   * @return a copy listening on {@code address}
   */
  public WebhookServerConfig withBindAddress(String address) {
    return with(f -> f.bindAddress = address);
  }

  /**
   * @return a copy mutating only CAPI Machines matching {@code selector}
   */
  public WebhookServerConfig withCapiMachineSelector(LabelSelector selector) {
    return with(f -> f.capiMachineSelector = selector);
  }

  /**
   * @return a copy checking the PEM files every {@code interval} (zero disables)
   */
  public WebhookServerConfig withCertificateReloadInterval(Duration interval) {
    return with(f -> f.certificateReloadInterval = interval);
  }

  /**
   * @return a copy warning when the certificate expires within {@code window} (zero disables)
   */
  public WebhookServerConfig withCertificateExpiryWarning(Duration window) {
    return with(f -> f.certificateExpiryWarning = window);
  }

  /**
   * @return a copy with at most {@code threads} Jetty request threads
   * @throws IllegalArgumentException when {@code threads} is outside {@link #MIN_THREADS} to {@link
   *     #MAX_THREADS}
   */
  public WebhookServerConfig withMaxThreads(int threads) {
    return with(f -> f.maxThreads = threads);
  }

  /**
   * @param provider the TLS implementation ({@code --tls-provider}); {@link TlsProvider#AUTO} by
   *     default
   * @return a copy serving TLS with {@code provider}
   */
  public WebhookServerConfig withTlsProvider(TlsProvider provider) {
    return with(f -> f.tlsProvider = provider);
  }

  /**
   * @param connections most open TCP connections, at least 1
   * @return a copy accepting at most {@code connections} at a time
   * @throws IllegalArgumentException when {@code connections} is below 1
   */
  public WebhookServerConfig withMaxConnections(int connections) {
    return with(f -> f.maxConnections = connections);
  }

  /**
   * @return a copy that also serves {@code /healthz} and {@code /readyz} over plain HTTP at {@code
   *     address} ({@code :8081}, {@code 127.0.0.1:0}; {@code "0"} for nowhere but the HTTPS port)
   */
  public WebhookServerConfig withHealthProbeBindAddress(String address) {
    return with(f -> f.healthProbeBindAddress = address);
  }

  /**
   * @return a copy that also serves {@code /metrics} over plain HTTP at {@code address} ({@code
   *     :8080}, {@code 127.0.0.1:0}; {@code "0"} for nowhere but the HTTPS port)
   */
  public WebhookServerConfig withMetricsBindAddress(String address) {
    return with(f -> f.metricsBindAddress = address);
  }

  /** A copy with {@code change} applied to its fields (checked again by the constructor). */
  private WebhookServerConfig with(java.util.function.Consumer<Fields> change) {
    Fields f = new Fields(this);
    change.accept(f);
    return f.build();
  }

  /** The record's fields, mutable, for the withers. */
  private static final class Fields {
    Path certFile;
    Path keyFile;
    String bindAddress;
    LabelSelector capiMachineSelector;
    Duration certificateReloadInterval;
    Duration certificateExpiryWarning;
    int maxThreads;
    TlsProvider tlsProvider;
    int maxConnections;
    String healthProbeBindAddress;
    String metricsBindAddress;

    Fields(WebhookServerConfig c) {
      certFile = c.certFile;
      keyFile = c.keyFile;
      bindAddress = c.bindAddress;
      capiMachineSelector = c.capiMachineSelector;
      certificateReloadInterval = c.certificateReloadInterval;
      certificateExpiryWarning = c.certificateExpiryWarning;
      maxThreads = c.maxThreads;
      tlsProvider = c.tlsProvider;
      maxConnections = c.maxConnections;
      healthProbeBindAddress = c.healthProbeBindAddress;
      metricsBindAddress = c.metricsBindAddress;
    }

    WebhookServerConfig build() {
      return new WebhookServerConfig(
          certFile,
          keyFile,
          bindAddress,
          capiMachineSelector,
          certificateReloadInterval,
          certificateExpiryWarning,
          maxThreads,
          tlsProvider,
          maxConnections,
          healthProbeBindAddress,
          metricsBindAddress);
    }
  }
}

package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.api.client.KubeconfigContext;
import dev.ironcore.maintenance.api.client.KubeconfigConverter;
import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.process.BindAddress;
import dev.ironcore.maintenance.process.Cli;
import dev.ironcore.maintenance.process.DurationFlag;
import dev.ironcore.maintenance.process.FlagRange;
import dev.ironcore.maintenance.process.KubeconfigEnv;
import dev.ironcore.maintenance.process.ProcessOptions;
import dev.ironcore.maintenance.process.StartFailure;
import dev.ironcore.maintenance.process.VersionInfo;
import dev.ironcore.maintenance.server.tls.TlsProvider;
import dev.ironcore.maintenance.server.warning.BoundMachines;
import dev.ironcore.maintenance.server.warning.LiveBoundMachines;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command line entry point: starts a {@link WebhookServer} and serves until SIGTERM or SIGINT,
 * which stop it (no new connections, the reviews in flight finished within the drain time) and end
 * the process with exit code 0. Exit code 2 for bad flags, 1 when the server cannot start (e.g.
 * unreadable PEM files).
 */
@Command(
    name = "webhook-server",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    versionProvider = VersionInfo.Provider.class,
    description =
        "Serves the IronCore maintenance admission and conversion webhooks over HTTPS. At"
            + " --zap-log-level=info it logs denied admission requests; allowed ones and"
            + " conversions only at debug.")
public final class WebhookServerMain implements Callable<Integer> {

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "9443",
      description = "HTTPS port (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--bind-address",
      paramLabel = "HOST",
      defaultValue = "0.0.0.0",
      description = "Address to listen on (default ${DEFAULT-VALUE}).")
  String bindAddress;

  @Option(
      names = "--tls-cert-file",
      paramLabel = "FILE",
      required = true,
      description = "PEM serving certificate chain, leaf first.")
  Path certFile;

  @Option(
      names = "--tls-private-key-file",
      paramLabel = "FILE",
      required = true,
      description = "PEM private key of the certificate.")
  Path keyFile;

  @Option(
      names = "--capi-machine-selector",
      paramLabel = "SELECTOR",
      defaultValue = "",
      converter = SelectorConverter.class,
      description =
          "Label selector (kubectl -l syntax) of the CAPI Machines to mutate; empty selects all.")
  LabelSelector capiMachineSelector;

  @Option(
      names = "--eviction-warnings",
      defaultValue = "true",
      negatable = true,
      fallbackValue = "true",
      description =
          "Warn (kubectl prints it) when a NoExecute taint added to a MachinePool will evict bound Machines,"
              + " counted by one LIST of the pool's Machines per such write, and when a Machine is bound"
              + " to a pool whose NoExecute taints will evict it (one GET of the pool, reused for 1 s);"
              + " at most 2 s each (needs list on machines and get on machinepools.compute.ironcore.dev;"
              + " without API access or an answer in time, no warning). Default ${DEFAULT-VALUE}.")
  boolean evictionWarnings;

  @Option(
      names = "--kubeconfig",
      converter = KubeconfigConverter.class,
      paramLabel = "FILE",
      description =
          "Kubeconfig of the IronCore API, for the eviction warnings' LIST of Machines (its current"
              + " context). Default: KUBECONFIG, else ~/.kube/config, else the in-cluster service"
              + " account.")
  io.fabric8.kubernetes.client.Config kubeconfig;

  @Option(
      names = "--max-threads",
      paramLabel = "N",
      defaultValue = "" + WebhookServerConfig.DEFAULT_MAX_THREADS,
      description =
          "Most request threads of the HTTPS server, "
              + WebhookServerConfig.MIN_THREADS
              + " to "
              + WebhookServerConfig.MAX_THREADS
              + " (default ${DEFAULT-VALUE}; reviews never wait for a body, so more threads"
              + " rarely help).")
  int maxThreads;

  @Option(
      names = "--max-connections",
      paramLabel = "N",
      defaultValue = "" + WebhookServerConfig.DEFAULT_MAX_CONNECTIONS,
      description =
          "Most open TCP connections of the HTTPS server, at least 1 (default ${DEFAULT-VALUE})."
              + " At the limit new connections wait in the kernel's accept queue, and open ones"
              + " with no request in flight for 5 s are closed (whatever bytes they send); every"
              + " connection costs memory, so this keeps a flood of connections from growing the"
              + " process past its memory limit.")
  int maxConnections;

  @Option(
      names = "--health-probe-bind-address",
      paramLabel = "ADDRESS",
      defaultValue = "0",
      description =
          "Also serve /healthz and /readyz over plain HTTP here, e.g. :8081 or 127.0.0.1:0, so"
              + " that probes never wait behind webhook connections (--max-connections does not"
              + " count them; that port takes at most 8 connections); 0 (the default) serves them"
              + " only on the HTTPS port.")
  String healthProbeBindAddress;

  @Option(
      names = "--metrics-bind-address",
      paramLabel = "ADDRESS",
      defaultValue = "0",
      description =
          "Also serve the Prometheus /metrics over plain HTTP here, e.g. :8080 or 127.0.0.1:0, so"
              + " that scrapers need no CA and are answered while the webhook port is full"
              + " (--max-connections does not count them; that port takes at most 4"
              + " connections); 0 (the default) serves /metrics only on the HTTPS port.")
  String metricsBindAddress;

  @Option(
      names = "--tls-provider",
      paramLabel = "PROVIDER",
      defaultValue = "auto",
      converter = TlsProviderConverter.class,
      description =
          "TLS implementation, any case: conscrypt (BoringSSL, native crypto; refuses to start"
              + " where its native library does not load), jdk (the JDK's SunJSSE), or auto:"
              + " conscrypt where its native library loads, else jdk (default ${DEFAULT-VALUE}).")
  TlsProvider tlsProvider;

  @Option(
      names = "--validate-flags",
      hidden = true,
      description = "Check the flags and exit (used by make run before it starts anything).")
  boolean validateFlagsOnly;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--certificate-expiry-warning",
      paramLabel = "DURATION",
      defaultValue = "30d",
      converter = DurationFlag.Converter.class,
      description =
          "Log a warning and set metric ironcore_maintenance_serving_certificate_expiring to 1"
              + " when the serving certificate expires within this window, e.g. 30d, 12h; 0"
              + " disables (default ${DEFAULT-VALUE}).")
  Duration certificateExpiryWarning;

  @Mixin ProcessOptions process;

  /**
   * @param args command line flags, see {@code --help}
   */
  public static void main(String[] args) {
    System.exit(Cli.of(new WebhookServerMain()).execute(args));
  }

  @Override
  public Integer call() {
    checkFlags();
    if (validateFlagsOnly) {
      return 0;
    }
    process.applyLogging();
    WebhookServerConfig config =
        WebhookServerConfig.of(certFile, keyFile)
            .withBindAddress(bindAddress)
            .withCapiMachineSelector(capiMachineSelector)
            .withCertificateExpiryWarning(certificateExpiryWarning)
            .withMaxThreads(maxThreads)
            .withMaxConnections(maxConnections)
            .withHealthProbeBindAddress(healthProbeBindAddress)
            .withMetricsBindAddress(metricsBindAddress)
            .withTlsProvider(tlsProvider);
    // The server starts first: ready to serve without waiting for the Kubernetes client, which
    // only feeds the eviction warnings (no warning until its cache has listed Machines anyway).
    AtomicReference<BoundMachines> bound = new AtomicReference<>(BoundMachines.NONE);
    WebhookServer server = new WebhookServer(config, BoundMachines.delegatingTo(bound::get));
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      server.start(port);
    } catch (RuntimeException e) {
      StartFailure.report("webhook-server", e.getMessage());
      return 1;
    }
    // SIGTERM (kubelet) and SIGINT: stop accepting, finish in-flight reviews, exit 0 (a JVM ended
    // by its default handler exits 143)
    for (String signal : java.util.List.of("TERM", "INT")) {
      sun.misc.Signal.handle(new sun.misc.Signal(signal), s -> stopped.countDown());
    }
    KubernetesClient client = null;
    java.util.Optional<String> noCluster =
        kubeconfig != null
            ? java.util.Optional.empty()
            : KubeconfigContext.noCluster(System.getenv());
    if (evictionWarnings && noCluster.isPresent()) {
      org.slf4j.LoggerFactory.getLogger(WebhookServerMain.class)
          .warn(
              "no eviction warnings: {} (--no-eviction-warnings turns them off without this line)",
              noCluster.get());
    } else if (evictionWarnings) {
      try {
        io.fabric8.kubernetes.client.Config clientConfig =
            kubeconfig != null ? kubeconfig : KubeconfigContext.autoConfigure(System.getenv());
        // fabric8 reads the certificate files here: "An error has occurred." said nothing
        client =
            KubeconfigContext.build(
                kubeconfig != null
                    ? "--kubeconfig=" + Cli.lastValue(spec, "--kubeconfig")
                    : KubeconfigContext.source(System.getenv()),
                () -> LiveBoundMachines.client(clientConfig));
        startEvictionWarnings(client, bound);
      } catch (RuntimeException e) {
        // KubeconfigContext.Unloadable names the place, never the content
        org.slf4j.LoggerFactory.getLogger(WebhookServerMain.class)
            .warn("no eviction warnings: {}", e.getMessage());
      }
    }
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.stop();
    if (client != null) {
      client.close();
    }
    return 0;
  }

  /**
   * Refuses, before anything starts, values that parse but cannot work: a port outside 0–65535, a
   * bind address that does not resolve to an address of this machine, a health-probe port equal to
   * the webhook's, too few threads, an empty certificate or key file name, a {@code KUBECONFIG}
   * naming a missing file or a kubeconfig whose current context cannot be used ({@link
   * KubeconfigContext}), or one fabric8's parser refuses; all when the eviction warnings need the
   * cluster; not with {@code --validate-flags}, which make run calls before its control plane
   * writes the file).
   */
  private void checkFlags() {
    FlagRange.between(spec, "--port", port, 0, 65535);
    if (bindAddress.isBlank()) {
      // Jetty would listen on loopback only: unreachable in a pod, with no error
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--bind-address must not be empty (0.0.0.0 listens on every interface, 127.0.0.1 on"
              + " loopback only)");
    }
    try {
      BindAddress.host(bindAddress);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--bind-address: " + e.getMessage());
    }
    FlagRange.between(
        spec,
        "--max-threads",
        maxThreads,
        WebhookServerConfig.MIN_THREADS,
        WebhookServerConfig.MAX_THREADS);
    FlagRange.atLeast(spec, "--max-connections", maxConnections, 1);
    int probePort = plainPort("--health-probe-bind-address", healthProbeBindAddress, "probes");
    int metricsPort = plainPort("--metrics-bind-address", metricsBindAddress, "metrics");
    if (metricsPort != 0 && metricsPort == probePort) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--metrics-bind-address: port "
              + metricsPort
              + " is --health-probe-bind-address's; the metrics need a port of their own");
    }
    if (certFile.toString().isEmpty() || keyFile.toString().isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          (certFile.toString().isEmpty() ? "--tls-cert-file" : "--tls-private-key-file")
              + " must name a file, not be empty");
    }
    if (evictionWarnings && !validateFlagsOnly && kubeconfig == null) {
      try {
        KubeconfigEnv.check(System.getenv());
        KubeconfigContext.checkEnv(System.getenv());
        if (KubeconfigContext.noCluster(System.getenv()).isEmpty()) {
          // a file fabric8's parser refuses (a token given as a list) is refused as the
          // controller refuses it, not only warned of once serving (fresh eyes, session 51)
          KubeconfigContext.autoConfigure(System.getenv());
        }
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
  }

  /**
   * The port of a plain-HTTP bind address ({@code --health-probe-bind-address}, {@code
   * --metrics-bind-address}); 0 when off or picked at start.
   *
   * @throws CommandLine.ParameterException naming {@code flag} when the address is malformed or its
   *     port is the webhook's {@code --port}
   */
  private int plainPort(String flag, String address, String what) {
    int plain;
    try {
      plain = BindAddress.parse(address).map(a -> a.getPort()).orElse(0);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), flag + ": " + e.getMessage());
    }
    if (plain != 0 && plain == port) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          flag
              + ": port "
              + plain
              + " is the webhook's --port; the "
              + what
              + " need a port of their own");
    }
    return plain;
  }

  /** Parses {@code --tls-provider}; an unknown value is reported as a flag error. */
  static final class TlsProviderConverter implements CommandLine.ITypeConverter<TlsProvider> {
    @Override
    public TlsProvider convert(String value) {
      try {
        return TlsProvider.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Parses {@code --capi-machine-selector}; a bad selector is reported as a flag error. */
  static final class SelectorConverter implements CommandLine.ITypeConverter<LabelSelector> {
    @Override
    public LabelSelector convert(String value) {
      try {
        return LabelSelector.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /**
   * Turns eviction warnings on, on a thread of its own: the first discovery request must not hold
   * up the main thread, which answers SIGTERM.
   */
  private static void startEvictionWarnings(
      KubernetesClient client, AtomicReference<BoundMachines> bound) {
    Thread starter =
        new Thread(() -> bound.set(new LiveBoundMachines(client)), "eviction-warnings-start");
    starter.setDaemon(true);
    starter.start();
  }
}

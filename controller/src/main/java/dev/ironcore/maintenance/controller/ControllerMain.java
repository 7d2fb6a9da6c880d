package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.client.KubeconfigContext;
import dev.ironcore.maintenance.api.client.KubeconfigConverter;
import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.api.validation.LabelSyntax;
import dev.ironcore.maintenance.controller.drain.DrainPolicy;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.metrics.HealthServer;
import dev.ironcore.maintenance.process.BindAddress;
import dev.ironcore.maintenance.process.Cli;
import dev.ironcore.maintenance.process.DurationFlag;
import dev.ironcore.maintenance.process.FlagRange;
import dev.ironcore.maintenance.process.KubeconfigEnv;
import dev.ironcore.maintenance.process.ProcessOptions;
import dev.ironcore.maintenance.process.VersionInfo;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command line entry of the controller. The cluster is {@code --kubeconfig}'s, else found as
 * kubectl finds it ({@code KUBECONFIG}, {@code ~/.kube/config}, or the in-cluster service account).
 */
@Command(
    name = "ironcore-maintenance-controller",
    mixinStandardHelpOptions = true,
    // the full synopsis wrapped option names mid-word in the narrow column after the long name
    abbreviateSynopsis = true,
    versionProvider = VersionInfo.Provider.class,
    description =
        "Evicts Machines by NoExecute taints, drains IronCore MachinePools before Cluster API deletes their node,"
            + " deletes emptied pools and marks pools whose agent went silent Ready=Unknown.")
public final class ControllerMain implements Callable<Integer> {

  @Option(
      names = "--capi-machine-selector",
      paramLabel = "SELECTOR",
      defaultValue = "",
      converter = SelectorConverter.class,
      description =
          "Label selector of the CAPI Machines to manage (kubectl -l syntax); empty selects all.")
  String capiMachineSelector;

  @Option(
      names = "--resync-period",
      paramLabel = "DURATION",
      defaultValue = "5m",
      converter = DurationFlag.Converter.class,
      description =
          "How often every cached object is re-checked, to catch missed watch events (e.g. 30s, 5m; default: ${DEFAULT-VALUE}).")
  java.time.Duration resyncPeriod;

  @Option(
      names = "--machine-pool-lifecycle-grace-period",
      paramLabel = "DURATION",
      defaultValue = "50s",
      converter = DurationFlag.Converter.class,
      description =
          "Mark a MachinePool Ready=Unknown when neither its Lease renewTime nor its Ready condition changed for this long (default: ${DEFAULT-VALUE}).")
  java.time.Duration gracePeriod;

  @Option(
      names = "--drain-timeout",
      paramLabel = "DURATION",
      defaultValue = "30m",
      converter = DurationFlag.Converter.class,
      description =
          "Report a drain as DrainStuck (Warning event, condition, metric) when it has held the pre-drain hook"
              + " longer than this since it tainted the pool (time queued for a drain slot does not count;"
              + " without the taint's timeAdded, since the CAPI Machine's deletion); nothing is released by"
              + " force. 0 turns it off (default: ${DEFAULT-VALUE}).")
  java.time.Duration drainTimeout;

  @Option(
      names = "--max-concurrent-drains",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "At most this many pools are tainted for maintenance at once; further drains wait (DrainQueued) in"
              + " order of deletion. 0 means unlimited (default: ${DEFAULT-VALUE}).")
  int maxConcurrentDrains;

  @Option(
      names = "--workers",
      paramLabel = "N",
      defaultValue = "2",
      description =
          "Worker threads per loop (eviction, drain), except the pool health loop; 1 to "
              + MAX_WORKERS
              + " (default: ${DEFAULT-VALUE}).")
  int workers;

  /** The most worker threads {@code --workers} and {@code --pool-health-workers} accept. */
  static final int MAX_WORKERS = 1000;

  @Option(
      names = "--pool-health-workers",
      paramLabel = "N",
      defaultValue = "" + ControllerOptions.DEFAULT_HEALTH_WORKERS,
      description =
          "Worker threads of the pool health loop, which writes Ready=Unknown; such writes come"
              + " in bursts when many poollets stop at once; 1 to "
              + MAX_WORKERS
              + " (default: ${DEFAULT-VALUE}).")
  int healthWorkers;

  @Option(
      names = "--leader-elect",
      defaultValue = "false",
      description =
          "Run the loops only while holding the leader-election Lease (for more than one replica).")
  boolean leaderElect;

  @Option(
      names = "--leader-election-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "${env:POD_NAMESPACE:-ironcore-maintenance-system}",
      description =
          "Namespace of the leader-election Lease (default: $POD_NAMESPACE, else ironcore-maintenance-system).")
  String leaderElectionNamespace;

  @Option(
      names = "--leader-election-id",
      paramLabel = "NAME",
      defaultValue = LeaderElection.LEASE_NAME,
      description =
          "Name of the leader-election Lease (default: ${DEFAULT-VALUE}). This candidate's identity"
              + " in it is $POD_NAME, else host name and pid.")
  String leaderElectionId;

  @Option(
      names = "--health-probe-bind-address",
      paramLabel = "ADDRESS",
      defaultValue = ":8081",
      description =
          "Address of /healthz (liveness) and /readyz (caches synced, or a standby waiting for the"
              + " Lease), plain HTTP, e.g. :8081 or 127.0.0.1:0; 0 turns it off (default:"
              + " ${DEFAULT-VALUE}).")
  String healthProbeBindAddress;

  @Option(
      names = "--metrics-bind-address",
      paramLabel = "ADDRESS",
      defaultValue = ":8080",
      description =
          "Address of the Prometheus /metrics endpoint, plain HTTP; 0 turns it off (default:"
              + " ${DEFAULT-VALUE}).")
  String metricsBindAddress;

  @Mixin ProcessOptions process;

  @Option(
      names = "--kubeconfig",
      converter = KubeconfigConverter.class,
      paramLabel = "FILE",
      description =
          "Kubeconfig of the controller's own cluster (CAPI Machines, the leader-election Lease;"
              + " the IronCore API too unless --ironcore-kubeconfig), its current context."
              + " Default: KUBECONFIG, else ~/.kube/config, else the in-cluster service account.")
  Config kubeconfig;

  @Option(
      names = "--ironcore-kubeconfig",
      converter = KubeconfigConverter.class,
      paramLabel = "FILE",
      description =
          "Kubeconfig of the IronCore API: MachinePools, Machines, pool Leases and their Events are"
              + " read and written there, CAPI Machines and the leader-election Lease stay in the"
              + " controller's own cluster (in-cluster or KUBECONFIG). Default: one cluster for"
              + " all.")
  Config ironcoreKubeconfig;

  @Option(
      names = "--informer-down-threshold",
      paramLabel = "DURATION",
      defaultValue = "2m",
      converter = DurationFlag.Converter.class,
      description =
          "/healthz fails once a watch (informer) stayed down this long, so Kubernetes restarts the process (default: ${DEFAULT-VALUE}).")
  java.time.Duration informerDownThreshold;

  @Option(
      names = "--orphaned-machine-grace",
      paramLabel = "DURATION",
      defaultValue = "5m",
      converter = DurationFlag.Converter.class,
      description =
          "Release the poollet finalizer of a deleting Machine whose MachinePool does not exist after this long (Warning event; default: ${DEFAULT-VALUE}).")
  java.time.Duration orphanedMachineGrace;

  @Option(
      names = "--validate-flags",
      hidden = true,
      description = "Check the flags and exit (used by make run before it starts anything).")
  boolean validateFlagsOnly;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    checkRanges();
    java.util.Optional<java.net.InetSocketAddress> probeAddress =
        bindAddress("--health-probe-bind-address", healthProbeBindAddress);
    java.util.Optional<java.net.InetSocketAddress> metricsAddress =
        bindAddress("--metrics-bind-address", metricsBindAddress);
    if (probeAddress.isPresent()
        && metricsAddress.isPresent()
        && probeAddress.get().getPort() != 0
        && probeAddress.get().getPort() == metricsAddress.get().getPort()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--metrics-bind-address: port "
              + metricsAddress.get().getPort()
              + " is --health-probe-bind-address's; the metrics need a port of their own");
    }
    if (validateFlagsOnly) {
      return 0;
    }
    if (kubeconfig == null) {
      try {
        KubeconfigEnv.check(System.getenv());
        KubeconfigContext.checkEnv(System.getenv());
        KubeconfigContext.noCluster(System.getenv())
            .ifPresent(
                reason -> {
                  throw new IllegalArgumentException(reason);
                });
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    process.applyLogging();
    // SIGTERM (kubelet) and SIGINT (Ctrl-C) stop the process in order and exit 0 (a JVM ended by
    // its default handler exits 143), from here on: a stop during the start's requests does not
    // wait for them (fresh eyes: with the API server paused, a SIGTERM waited 40 s for the Lease
    // check, and the process then took the Lease)
    CountDownLatch stop = new CountDownLatch(1);
    for (String signal : java.util.List.of("TERM", "INT")) {
      sun.misc.Signal.handle(new sun.misc.Signal(signal), s -> stop.countDown());
    }
    Config config = kubeconfig;
    if (config == null) {
      try {
        // a file fabric8's parser refuses is a flag error too, named by place only (never quoted)
        config = KubeconfigContext.autoConfigure(System.getenv());
      } catch (KubeconfigContext.Unloadable e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    ControllerOptions options =
        new ControllerOptions(
            capiMachineSelector,
            resyncPeriod,
            workers,
            healthWorkers,
            gracePeriod,
            new DrainPolicy(drainTimeout, maxConcurrentDrains));
    // with --leader-elect, every write of both clients waits on this replica's leadership
    LeadershipGate gate = new LeadershipGate();
    java.util.function.Consumer<io.fabric8.kubernetes.client.http.HttpClient.Builder> gated =
        b -> {
          if (leaderElect) {
            b.addOrReplaceInterceptor("leadership", gate);
          }
        };
    KubernetesClient client =
        client(
            config,
            gated,
            kubeconfig == null
                ? KubeconfigContext.source(System.getenv())
                // as picocli names a value KubeconfigConverter refuses: the path as given
                : "Invalid value for option '--kubeconfig': kubeconfig "
                    + Cli.lastValue(spec, "--kubeconfig"));
    Clusters clusters =
        ironcoreKubeconfig == null
            ? Clusters.single(client)
            : new Clusters(
                client,
                client(
                    ironcoreKubeconfig,
                    gated,
                    // as picocli names a value KubeconfigConverter refuses: the path as given
                    "Invalid value for option '--ironcore-kubeconfig': kubeconfig "
                        + Cli.lastValue(spec, "--ironcore-kubeconfig")));
    org.slf4j.LoggerFactory.getLogger(ControllerMain.class)
        .info(
            (clusters.separate()
                    ? leaderElect
                        ? "CAPI Machines and leader election: {}; IronCore API (--ironcore-kubeconfig): {}"
                        : "CAPI Machines: {}; IronCore API (--ironcore-kubeconfig): {}"
                    : leaderElect
                        ? "CAPI Machines, IronCore API and leader election: {}"
                        : "CAPI Machines and IronCore API: {}")
                + (leaderElect
                    ? ""
                    : " (no --leader-elect: this process writes without a Lease; run one"
                        + " replica only)"),
            clusters.capi().getMasterUrl(),
            clusters.ironcore().getMasterUrl());
    if (clusters.separate()
        && clusters
            .capi()
            .getMasterUrl()
            .toString()
            .equalsIgnoreCase(clusters.ironcore().getMasterUrl().toString())) {
      org.slf4j.LoggerFactory.getLogger(ControllerMain.class)
          .warn(
              "--ironcore-kubeconfig reaches the API server of the CAPI Machines ({}): its"
                  + " objects are watched through two clients; leave the flag out when one"
                  + " cluster serves both",
              clusters.ironcore().getMasterUrl());
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    if (leaderElect) {
      // client-go's (and so controller-runtime's) gauge: 1 on the replica that leads, 0 on a
      // standby; alerting on its max over the replicas sees a controller that nobody runs
      io.micrometer.core.instrument.Gauge.builder(
              "leader_election_master_status", gate, g -> g.leads() ? 1 : 0)
          .description(
              "1 while this replica leads (renewed the Lease within the renew deadline), else 0")
          .tag("name", leaderElectionId)
          .register(registry);
    }
    ControllerMetrics metrics = new ControllerMetrics(registry);
    // on every replica, standbys too: with one API server for the pools and the Lease, a leader
    // that cannot reach it exits at the renew deadline, and only the standbys can say why
    dev.ironcore.maintenance.controller.health.ApiServerReach reach =
        ControllerApp.startApiServerReach(clusters, java.time.Clock.systemUTC(), metrics);
    // two clusters: the CAPI connection gets its probe too (with one replica and no Lease there,
    // nothing else keeps it busy: a NAT dropped it as idle and the drains' writes and the
    // informers' probe watches waited on it; fresh eyes, session 48)
    dev.ironcore.maintenance.controller.health.ApiServerReach capiReach =
        clusters.separate()
            ? dev.ironcore.maintenance.controller.health.ApiServerReach.ofCapi(
                    clusters.failFast().capi(), java.time.Clock.systemUTC())
                .start()
            : null;
    ControllerApp app =
        new ControllerApp(clusters, options, metrics)
            .withApiServerReach(reach)
            .withCapiReach(capiReach)
            .withInformerDownThreshold(informerDownThreshold)
            .withOrphanedMachineGrace(orphanedMachineGrace);
    String identity = leaderElect ? Instance.name() : null;
    Readiness readiness = new Readiness(identity);
    readiness.informers(app::isReady);
    HealthServer health = null;
    HealthServer metricsServer = null;
    String listening = "--health-probe-bind-address " + healthProbeBindAddress;
    try {
      if (probeAddress.isPresent()) {
        health =
            HealthServer.probes(
                probeAddress.get(), readiness::ready, readiness::describe, app::isHealthy);
        org.slf4j.LoggerFactory.getLogger(ControllerMain.class)
            .info("/healthz and /readyz on {} (port {})", healthProbeBindAddress, health.port());
      }
      listening = "--metrics-bind-address " + metricsBindAddress;
      if (metricsAddress.isPresent()) {
        metricsServer = HealthServer.metrics(metricsAddress.get(), registry);
        org.slf4j.LoggerFactory.getLogger(ControllerMain.class)
            .info("/metrics on {} (port {})", metricsBindAddress, metricsServer.port());
      }
    } catch (java.io.IOException | RuntimeException e) {
      if (health != null) {
        health.close();
      }
      // not a flag error: one line, exit code 1 (Cli), as the webhook server's taken port
      throw new IllegalStateException("cannot listen on " + listening + ": " + e.getMessage(), e);
    }
    java.util.concurrent.atomic.AtomicBoolean stopping =
        new java.util.concurrent.atomic.AtomicBoolean();
    LeaseRelease elector = null;
    // the loops' start on the leader-start thread: a stop waits for it to end (cut short by the
    // closed caches) before the Lease is released and the process exits
    java.util.concurrent.atomic.AtomicBoolean startBegan =
        new java.util.concurrent.atomic.AtomicBoolean();
    CountDownLatch startEnded = new CountDownLatch(1);
    if (leaderElect) {
      boolean checked;
      try {
        checked =
            untilDoneOrStopped(
                "lease-check",
                () ->
                    LeaderElection.checkLeaseCanBeWritten(
                        client, leaderElectionNamespace, leaderElectionId),
                stop);
      } catch (IllegalStateException e) {
        if (health != null) {
          health.close();
        }
        if (metricsServer != null) {
          metricsServer.close();
        }
        throw e;
      }
      // a start that fails after this process won the Lease releases it on its way out, so a
      // standby need not wait for it to expire (controller-runtime: ReleaseOnCancel)
      java.util.concurrent.atomic.AtomicReference<LeaseRelease> started =
          new java.util.concurrent.atomic.AtomicReference<>();
      CompletableFuture<?> running =
          !checked || stop.getCount() == 0
              ? null // stopped before it took part: no elector, no Lease of its own
              : LeaderElection.start(
                  client,
                  leaderElectionNamespace,
                  leaderElectionId,
                  identity,
                  readiness,
                  () -> {
                    startBegan.set(true);
                    try {
                      startOrExit(
                          app,
                          readiness,
                          stopping::get,
                          () -> {
                            stopping.set(true);
                            LeaseRelease release = started.get();
                            if (release != null) {
                              releaseLease(release);
                            }
                          });
                    } finally {
                      startEnded.countDown();
                    }
                  },
                  stopping::get,
                  gate);
      if (running != null) {
        elector = new LeaseRelease(running);
        started.set(elector);
      }
    } else {
      // a stop while the caches sync closes them (below), which cuts the start short
      untilDoneOrStopped(
          "controller-start",
          () -> {
            try {
              app.start();
            } catch (RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new IllegalStateException(e.getMessage(), e);
            }
            readiness.synced();
          },
          stop);
    }
    stop.await();
    stopping.set(true);
    org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ControllerMain.class);
    log.info(
        !leaderElect
            ? "controller stopping: loops finish their passes"
            : elector == null
                ? "controller stopping before it took part in leader election"
                : gate.leads()
                    ? "controller stopping: loops finish their passes, then the Lease is released"
                    : startBegan.get()
                        // it led, then missed the renew deadline (paused, or the API server
                        // silent): its writes are refused already (fresh eyes: "a standby")
                        ? "controller stopping: it led but has not renewed the Lease within the"
                            + " renew deadline, so its loops' writes are refused; loops finish"
                            + " their passes"
                        : "controller stopping: a standby (no loops ran, no Lease of its own to"
                            + " release)");
    app.close();
    if (startBegan.get() && !startEnded.await(START_END_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      log.warn(
          "the loops' start did not end within {} s of the stop; stopping anyway",
          START_END_WAIT.toSeconds());
    }
    reach.close();
    if (capiReach != null) {
      capiReach.close();
    }
    if (elector != null) {
      releaseLease(elector);
    }
    if (health != null) {
      health.close();
    }
    if (metricsServer != null) {
      metricsServer.close();
    }
    clusters.close();
    log.info("controller stopped");
    return 0;
  }

  /**
   * Runs {@code task} on a daemon thread of its own and waits for it or for {@code stop}, whichever
   * comes first: a start's request to an API server that does not answer (fabric8 retries for about
   * 40 s) must not hold a SIGTERM.
   *
   * @return true when {@code task} ended; false when the stop came first (the task is left to end
   *     on its own, or with the process)
   * @throws RuntimeException what {@code task} threw, when it ended first
   */
  private static boolean untilDoneOrStopped(String name, Runnable task, CountDownLatch stop)
      throws InterruptedException {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                task.run();
                done.complete(null);
              } catch (Throwable e) {
                done.completeExceptionally(e);
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    while (true) {
      try {
        done.get(100, TimeUnit.MILLISECONDS);
        return true;
      } catch (java.util.concurrent.TimeoutException e) {
        if (stop.getCount() == 0) {
          return false;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(e.getCause());
      }
    }
  }

  /** Flags whose values parse but make no sense (a zero period, no worker): refused at once. */
  private void checkRanges() {
    // each worker is a thread: 100,000 ended in OutOfMemoryError (no native thread) 30 s in
    FlagRange.between(spec, "--workers", workers, 1, MAX_WORKERS);
    FlagRange.between(spec, "--pool-health-workers", healthWorkers, 1, MAX_WORKERS);
    FlagRange.atLeast(spec, "--max-concurrent-drains", maxConcurrentDrains, 0);
    FlagRange.positive(spec, "--resync-period", resyncPeriod);
    FlagRange.positive(spec, "--machine-pool-lifecycle-grace-period", gracePeriod);
    FlagRange.positive(spec, "--informer-down-threshold", informerDownThreshold);
    FlagRange.positive(spec, "--orphaned-machine-grace", orphanedMachineGrace);
    if (leaderElectionId.isBlank() || leaderElectionNamespace.isBlank()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--leader-election-id and --leader-election-namespace must not be empty");
    }
    // the Lease's name and namespace: refused here rather than by the API server on every try
    List<String> idErrors = LabelSyntax.dns1123SubdomainErrors(leaderElectionId);
    if (!idErrors.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--leader-election-id="
              + leaderElectionId
              + ": the Lease's name "
              + String.join("; ", idErrors));
    }
    if (!isDns1123Label(leaderElectionNamespace)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--leader-election-namespace="
              + leaderElectionNamespace
              + ": a namespace name must be a lowercase RFC 1123 label: at most 63 lowercase"
              + " alphanumeric characters or '-', starting and ending with an alphanumeric"
              + " character");
    }
  }

  /** Kubernetes' {@code IsDNS1123Label}: a namespace name. */
  static boolean isDns1123Label(String s) {
    return s.length() <= 63
        && LabelSyntax.dns1123SubdomainErrors(s).isEmpty()
        && s.indexOf('.') < 0;
  }

  private java.util.Optional<java.net.InetSocketAddress> bindAddress(String flag, String value) {
    try {
      return BindAddress.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), flag + ": " + e.getMessage());
    }
  }

  /**
   * Steps down: cancels the elector, which releases the Lease when this process leads. An API
   * server that does not answer would hold the caller for fabric8's retries (about 40 s, past a
   * pod's 30 s grace period): at most {@link #LEASE_RELEASE_WAIT}, then the Lease expires on its
   * own (15 s).
   */
  private static void releaseLease(LeaseRelease elector) throws InterruptedException {
    if (!elector.releaseAndWait(LEASE_RELEASE_WAIT)) {
      org.slf4j.LoggerFactory.getLogger(ControllerMain.class)
          .warn(
              "leader election: the API server did not take the Lease's release within {} s; it"
                  + " expires on its own",
              LEASE_RELEASE_WAIT.toSeconds());
    }
  }

  /**
   * The {@code User-Agent} of every request: kube-apiserver names the manager of a write in {@code
   * metadata.managedFields} after it (up to the first {@code /}), so the pools' taints and
   * conditions and the CAPI Machines' hook and finalizer show as written by {@code
   * ironcore-maintenance-controller}, not by {@code fabric8-kubernetes-client} as any other fabric8
   * program (fresh eyes: the drain simulator's writes looked the same).
   */
  static final String USER_AGENT = "ironcore-maintenance-controller/v1";

  /**
   * A client of {@code config} (its {@code User-Agent} set to {@link #USER_AGENT}); fabric8 reads
   * the kubeconfig's certificate and key files here, so a file that is missing or unusable is a
   * flag error naming {@code source} (fresh eyes: a missing {@code certificate-authority} file
   * ended the start with "An error has occurred." and the path only).
   */
  private KubernetesClient client(
      Config config,
      java.util.function.Consumer<io.fabric8.kubernetes.client.http.HttpClient.Builder> gated,
      String source) {
    // fabric8's own, unless the user set one (KUBERNETES_USER_AGENT, kubernetes.user.agent)
    if (config.getUserAgent() == null
        || config.getUserAgent().startsWith("fabric8-kubernetes-client")) {
      config.setUserAgent(USER_AGENT);
    }
    try {
      return KubeconfigContext.build(
          source,
          () ->
              dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder()
                  .withConfig(config)
                  .withHttpClientBuilderConsumer(gated)
                  .build());
    } catch (KubeconfigContext.Unloadable e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** What a failed start does before it exits: e.g. release the Lease it won. */
  @FunctionalInterface
  private interface BeforeExit {
    void run() throws InterruptedException;
  }

  /**
   * Starts the loops once this process leads; a failed start releases the Lease ({@code
   * beforeExit}) and ends the process (exit code 1), unless a SIGTERM came first ({@code
   * stopping}): then the start was cut short on purpose (the main thread closed the caches it
   * waited for) and the main thread releases the Lease and exits 0 (fresh eyes: a SIGTERM within
   * about 0.5 s of winning the Lease exited 1, "informer manually stopped before starting", and
   * left it held).
   */
  private static void startOrExit(
      ControllerApp app,
      Readiness readiness,
      java.util.function.BooleanSupplier stopping,
      BeforeExit beforeExit) {
    try {
      app.start();
      readiness.synced();
    } catch (Exception e) {
      if (stopping.getAsBoolean() || e instanceof ControllerApp.Stopped) {
        org.slf4j.LoggerFactory.getLogger(ControllerMain.class)
            .info("controller start cut short by the stop ({})", Cli.reason(e));
        return;
      }
      try {
        beforeExit.run();
      } catch (InterruptedException | RuntimeException ignored) {
        // exiting anyway: the Lease then expires on its own
      }
      // as a start without --leader-elect ends: one line with the reason and its causes (e.g. the
      // caches that did not sync, and why), the stack trace only at debug, and last
      dev.ironcore.maintenance.process.StartFailure.report(
          ControllerMain.class.getAnnotation(Command.class).name(), Cli.reason(e));
      org.slf4j.LoggerFactory.getLogger(ControllerMain.class).debug("stack trace", e);
      Runtime.getRuntime().halt(1);
    }
  }

  /** Checks a label selector in kubectl syntax and keeps its text (the API server evaluates it). */
  static final class SelectorConverter implements CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        LabelSelector.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
      return value;
    }
  }

  /** How long a stop waits for the Lease's release before it goes on. */
  private static final java.time.Duration LEASE_RELEASE_WAIT = java.time.Duration.ofSeconds(5);

  /**
   * How long a stop waits for a start in progress to end once the caches are closed (it ends at
   * once, unless a request of the start still waits for an API server that does not answer).
   */
  private static final java.time.Duration START_END_WAIT = java.time.Duration.ofSeconds(2);

  public static void main(String[] args) {
    System.exit(Cli.of(new ControllerMain()).execute(args));
  }
}

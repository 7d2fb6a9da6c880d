package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.client.RefusedRequest;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.controller.drain.DrainCancelReconciler;
import dev.ironcore.maintenance.controller.drain.DrainGauges;
import dev.ironcore.maintenance.controller.drain.DrainReconciler;
import dev.ironcore.maintenance.controller.eviction.EvictionReconciler;
import dev.ironcore.maintenance.controller.health.ApiServerReach;
import dev.ironcore.maintenance.controller.health.PoolHealthReconciler;
import dev.ironcore.maintenance.controller.informers.InformerWatchdog;
import dev.ironcore.maintenance.controller.informers.SupervisedInformer;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.orphan.OrphanedMachineReconciler;
import dev.ironcore.maintenance.controller.runtime.Handlers;
import dev.ironcore.maintenance.controller.runtime.Keys;
import dev.ironcore.maintenance.controller.runtime.LoggedReconciler;
import dev.ironcore.maintenance.controller.runtime.Loop;
import dev.ironcore.maintenance.process.DurationFlag;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the loops: one shared {@link ClusterCache}, an eviction loop keyed by Machine, a drain loop
 * keyed by CAPI Machine, a drain-cancel loop and a health loop keyed by pool, with events fanned
 * out (a pool change re-queues its bound Machines, the CAPI Machines on its node, its drain-cancel
 * check and its health; a CAPI Machine change re-queues the drain-cancel check of its node's pool;
 * a Lease change re-queues its pool's health; a Machine change re-queues the CAPI Machines on its
 * pool's node).
 */
public final class ControllerApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ControllerApp.class);

  private final Clusters clusters;
  private final ControllerOptions options;
  private final List<AutoCloseable> running = new ArrayList<>();
  private final List<Loop> loops = new ArrayList<>();
  private final ControllerMetrics metrics;
  private volatile boolean started;

  /** Guards {@link #running}, {@link #loops} and {@link #closed} between start and close. */
  private final Object lifecycle = new Object();

  private boolean closed;
  private volatile ClusterCache cache;
  private volatile InformerWatchdog watchdog;
  private Duration informerDownThreshold = DEFAULT_INFORMER_DOWN_THRESHOLD;
  private Duration orphanedMachineGrace = DEFAULT_ORPHANED_MACHINE_GRACE;

  /** Default of {@code --orphaned-machine-grace}. */
  public static final Duration DEFAULT_ORPHANED_MACHINE_GRACE = Duration.ofMinutes(5);

  /** Default of {@code --informer-down-threshold}. */
  public static final Duration DEFAULT_INFORMER_DOWN_THRESHOLD = Duration.ofMinutes(2);

  /** One cluster for everything, metrics in memory. */
  public ControllerApp(KubernetesClient client, ControllerOptions options) {
    this(Clusters.single(client), options, ControllerMetrics.inMemory());
  }

  /**
   * @param metrics where the loops record their meters (e.g. a Prometheus registry)
   */
  public ControllerApp(
      KubernetesClient client, ControllerOptions options, ControllerMetrics metrics) {
    this(Clusters.single(client), options, metrics);
  }

  /**
   * @param clusters where CAPI Machines and where IronCore objects live (one client for both in a
   *     single cluster); the caller closes them after {@link #close()}
   * @param metrics where the loops record their meters (e.g. a Prometheus registry)
   */
  public ControllerApp(Clusters clusters, ControllerOptions options, ControllerMetrics metrics) {
    this.clusters = clusters;
    this.options = options;
    this.metrics = metrics;
  }

  /** True once the caches synced and the loops run. */
  public boolean isStarted() {
    return started;
  }

  /** Readiness: started, and every informer has listed and watches. */
  public boolean isReady() {
    InformerWatchdog w = watchdog;
    return started && w != null && w.ready();
  }

  /**
   * Liveness: false once an informer stayed down longer than the threshold, or while the
   * connections to the IronCore API server, or to the CAPI one in a two-cluster installation, are
   * stalled ({@link ApiServerReach#stalled()}).
   */
  public boolean isHealthy() {
    InformerWatchdog w = watchdog;
    ApiServerReach r = reach;
    ApiServerReach c = capiReach;
    return (w == null || w.healthy()) && (r == null || !r.stalled()) && (c == null || !c.stalled());
  }

  /**
   * The probe of the CAPI API server of a two-cluster installation ({@link ApiServerReach#ofCapi}),
   * started and closed by the caller; its stall fails {@link #isHealthy()}. Call before {@link
   * #start()}.
   */
  public ControllerApp withCapiReach(ApiServerReach capiReach) {
    this.capiReach = capiReach;
    return this;
  }

  private ApiServerReach capiReach;

  /**
   * How long an informer may stay down before {@link #isHealthy()} turns false ({@code
   * --informer-down-threshold}); call before {@link #start()}.
   */
  public ControllerApp withInformerDownThreshold(Duration threshold) {
    this.informerDownThreshold = threshold;
    return this;
  }

  /**
   * How long a deleting Machine bound to a missing pool keeps the poollet finalizer before the
   * controller releases it ({@code --orphaned-machine-grace}); call before {@link #start()}.
   */
  public ControllerApp withOrphanedMachineGrace(Duration grace) {
    this.orphanedMachineGrace = grace;
    return this;
  }

  /**
   * The probe of the IronCore API server the health loop uses, started by the caller (the process
   * starts it before leader election, so that a standby exports its gauge too); without it, {@link
   * #start()} starts one of its own and exports its gauge. Call before {@link #start()}.
   */
  public ControllerApp withApiServerReach(ApiServerReach reach) {
    this.reach = reach;
    return this;
  }

  private ApiServerReach reach;

  /**
   * Starts probing the IronCore API server of {@code clusters} ({@code GET /readyz}, fail-fast
   * client) and exports the result as {@code ironcore_maintenance_api_server_reachable}.
   *
   * @return the started probe; the caller closes it
   */
  public static ApiServerReach startApiServerReach(
      Clusters clusters, Clock clock, ControllerMetrics metrics) {
    ApiServerReach reach = ApiServerReach.of(clusters.failFast().ironcore(), clock).start();
    metrics.apiServerReachable(reach::reachable);
    return reach;
  }

  /** The cache, once started (tests use it to break an informer). */
  public ClusterCache cache() {
    return cache;
  }

  /**
   * Checks that the CAPI cluster serves {@code cluster.x-k8s.io/v1beta2}, the version our informer
   * and webhooks use (Cluster API 1.11 or later). A group served without it is refused: the
   * informer would list a 404 for ever and the webhooks, registered for v1beta2, would never be
   * called, so the CAPI Machines would be deleted without a drain (fresh eyes, session 41: a
   * v1beta1-only Cluster API got no protection and a controller that never became ready without
   * saying why). A group not served at all (Cluster API not installed yet, or its CRD being
   * installed) is logged at WARN: the informer keeps trying until the start's sync deadline.
   *
   * @throws IllegalStateException naming the versions served and what is needed; or when the API
   *     server refuses the credentials (401, 403; {@link RefusedRequest}) or does not answer (after
   *     fabric8's retries)
   */
  /**
   * The start's failure when the API server at {@code server} does not say which versions of {@code
   * group} it serves: {@code cannot read which versions of <group> <server> serves: } and what it
   * answered to refused credentials ({@link RefusedRequest}), else fabric8's failure as the cause
   * (the one-line report names it, e.g. {@code cannot connect (ConnectException)}).
   */
  private static IllegalStateException unreadableGroup(
      String group, java.net.URL server, io.fabric8.kubernetes.client.KubernetesClientException e) {
    String what = "cannot read which versions of " + group + " " + server + " serves";
    java.util.Optional<String> refused = RefusedRequest.describe(e);
    if (refused.isPresent()) {
      // the answer says it all; fabric8's exception stays for the stack trace (debug)
      IllegalStateException failure = new IllegalStateException(what + ": " + refused.get());
      failure.addSuppressed(e);
      return failure;
    }
    return new IllegalStateException(what, e);
  }

  private void capiServed() {
    io.fabric8.kubernetes.api.model.APIGroup group;
    try {
      group = clusters.capi().getApiGroup(Names.CAPI_GROUP);
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      // as for compute.ironcore.dev: refused credentials or no answer end the start here (fresh
      // eyes, session 47: a WARN, then 60 s more until the caches' deadline, in two-cluster mode)
      throw unreadableGroup(Names.CAPI_GROUP, clusters.capi().getMasterUrl(), e);
    }
    List<String> versions =
        group == null || group.getVersions() == null
            ? List.of()
            : group.getVersions().stream()
                .map(io.fabric8.kubernetes.api.model.GroupVersionForDiscovery::getVersion)
                .toList();
    if (versions.isEmpty()) {
      LOG.warn(
          "{} does not serve {} (is Cluster API installed? 1.11 or later is needed): the CAPI"
              + " Machine informer lists nothing until it does, and the start fails if the caches"
              + " have not synced within 60 s",
          clusters.capi().getMasterUrl(),
          Names.CAPI_GROUP);
    } else if (!versions.contains(Names.CAPI_STORAGE_VERSION)) {
      throw new IllegalStateException(
          Names.CAPI_GROUP
              + " on "
              + clusters.capi().getMasterUrl()
              + " serves "
              + versions
              + ", not "
              + Names.CAPI_STORAGE_VERSION
              + ": ironcore-maintenance needs Cluster API 1.11 or later (its webhooks and"
              + " informer use v1beta2 Machines; with this Cluster API, CAPI Machines would be"
              + " deleted without a drain)");
    }
  }

  /**
   * Starts informers, waits for them to sync (60 s at most), then starts the loops.
   *
   * @throws IllegalStateException first of all when the API server does not say which versions of
   *     compute.ironcore.dev it serves (after fabric8's retries of 5xx, 429 and no answer); a
   *     refusal of the credentials (401, 403) is said in one phrase ({@link RefusedRequest}); then
   *     when the caches did not sync within 60 s, naming each informer that did not list and its
   *     last failure ({@link ClusterCache#start})
   * @throws Stopped when {@link #close()} came first or while this waited (SIGTERM right after this
   *     process won the Lease): nothing is left running
   */
  public ControllerApp start() throws Exception {
    stopIfClosed();
    List<String> served;
    try {
      served = ComputeApi.served(clusters.ironcore());
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      throw unreadableGroup("compute.ironcore.dev", clusters.ironcore().getMasterUrl(), e);
    }
    ComputeApi api = ComputeApi.of(served);
    if (served.isEmpty()) {
      // as for cluster.x-k8s.io: say which API server and what to check (fresh eyes, session 47:
      // an --ironcore-kubeconfig naming the CAPI cluster got an INFO line, then a failure at the
      // caches' deadline saying 404)
      LOG.warn(
          "{} does not serve compute.ironcore.dev ({}): the MachinePool and Machine informers"
              + " list nothing until it does, and the start fails if the caches have not synced"
              + " within 60 s",
          clusters.ironcore().getMasterUrl(),
          clusters.separate()
              ? "does --ironcore-kubeconfig name the IronCore API server, with its CRDs installed?"
              : "are IronCore's CRDs installed? with the IronCore API in another cluster, name it"
                  + " with --ironcore-kubeconfig");
    } else if (api.delayedEviction()) {
      LOG.info(
          "compute.ironcore.dev serves {}: reading {}, delayed eviction on (tolerationSeconds)",
          served,
          api.apiVersion());
    } else {
      LOG.info(
          "compute.ironcore.dev serves {}: reading {}, delayed eviction off (v1alpha1-only API"
              + " server; a matching toleration tolerates for good)",
          served,
          api.apiVersion());
    }
    capiServed();
    ClusterCache cache = new ClusterCache(clusters, options.resyncPeriod(), api);
    this.cache = cache;
    Map<String, String> kinds =
        Map.of(
            "capi-machines", "Machine.cluster.x-k8s.io",
            "machines", "Machine.compute.ironcore.dev",
            "machinepools", "MachinePool.compute.ironcore.dev",
            "leases", "Lease.coordination.k8s.io");
    for (SupervisedInformer<?> i : cache.informers()) {
      metrics.informer(i.resource(), kinds.get(i.resource()), i::up, i::restarts);
      metrics.informerWatchSilence(i.resource(), () -> i.watchSilence().toMillis() / 1000.0);
      for (SupervisedInformer.Relist r : SupervisedInformer.Relist.values()) {
        metrics.informerRelists(i.resource(), r.label(), () -> i.relists(r));
      }
    }
    // the loops' requests fail at once instead of after fabric8's 10 retries (Clusters.failFast);
    // their Events too: a loop worker records some before its write (EventRecorder retries a
    // failed one in the background)
    Clusters loopClients = clusters.failFast();
    KubeWriter writer = new KubeWriter(loopClients, api);
    Clock clock = Clock.systemUTC();
    EventRecorder events = new EventRecorder(loopClients, clock);
    Loop eviction =
        new Loop(
            "eviction",
            LoggedReconciler.of(
                "Machine.compute.ironcore.dev",
                new EvictionReconciler(
                    loopClients.ironcore(), cache, events, metrics, clock, api.delayedEviction())),
            metrics);
    DrainReconciler drainReconciler =
        new DrainReconciler(
            writer,
            cache,
            metrics,
            LabelSelector.parse(options.capiMachineSelector()),
            options.drainPolicy(),
            clock,
            events);
    Loop drain =
        new Loop(
            "drain", LoggedReconciler.of("Machine.cluster.x-k8s.io", drainReconciler), metrics);
    Loop drainCancel =
        new Loop(
            "drain-cancel",
            LoggedReconciler.of(
                "MachinePool.compute.ironcore.dev",
                new DrainCancelReconciler(
                    writer,
                    cache,
                    LabelSelector.parse(options.capiMachineSelector()),
                    clock,
                    events)),
            metrics);
    ApiServerReach reach = this.reach;
    if (reach == null) {
      reach = startApiServerReach(clusters, clock, metrics);
      ApiServerReach own = reach;
      synchronized (lifecycle) {
        if (closed) {
          own.close();
          throw new Stopped();
        }
        running.add(own);
      }
    }
    PoolHealthReconciler poolHealth =
        new PoolHealthReconciler(
            loopClients.ironcore(), cache, clock, options.gracePeriod(), metrics, events, reach);
    metrics.poolsRenewingSlowerThanGrace(poolHealth::renewingSlowerThanGrace);
    Loop health =
        new Loop(
            "health", LoggedReconciler.of("MachinePool.compute.ironcore.dev", poolHealth), metrics);
    DrainGauges.register(metrics, cache, drainReconciler, options.drainPolicy(), clock);
    EventRecorder orphanEvents = new EventRecorder(loopClients, Clock.systemUTC());
    Loop orphans =
        new Loop(
            "orphans",
            new OrphanedMachineReconciler(
                writer, cache, orphanEvents, Clock.systemUTC(), orphanedMachineGrace),
            metrics);
    synchronized (lifecycle) {
      stopIfClosed();
      running.add(cache);
      running.add(events); // closed after the loops, before the caches: writes the held Events
      running.add(orphanEvents);
      running.add(eviction);
      running.add(drain);
      running.add(drainCancel);
      running.add(health);
      running.add(orphans);
      List<Loop> all = List.of(eviction, drain, drainCancel, health, orphans);
      loops.addAll(all);
      // failed passes back off up to 30 s: an API server back from an outage gets them at once,
      // as soon as the caches watch again (decisions on what changed meanwhile)
      for (ApiServerReach r : Stream.of(reach, capiReach).filter(Objects::nonNull).toList()) {
        String why = "API server " + r.apiServer() + " answers again and every cache watches";
        Runnable retry = () -> all.forEach(l -> l.retryFailedNow(why));
        running.add(
            r.onAnswerAgain(
                () -> {
                  InformerWatchdog dog = watchdog; // null until the caches synced: nothing failed
                  if (dog != null) {
                    dog.runOnceAllUp(retry);
                  }
                }));
      }
    }

    cache.onCapiMachine(
        Handlers.onAnyChange(
            (old, m) -> {
              drain.queue().add(Keys.of(m));
              Stream.of(old == null ? null : old.nodeName(), m.nodeName())
                  .filter(Objects::nonNull)
                  .distinct()
                  .forEach(
                      node -> {
                        drainCancel.queue().add(node);
                        // a drain held because this Machine shares its pool looks again at once
                        cache.capiMachinesOnNode(node).forEach(c -> drain.queue().add(Keys.of(c)));
                      });
            }));
    cache.onMachine(
        Handlers.onAnyChange(
            (old, m) -> {
              eviction.queue().add(Keys.of(m));
              orphans.queue().add(Keys.of(m));
              Stream.of(old == null ? null : old.boundPoolName(), m.boundPoolName())
                  .filter(Objects::nonNull)
                  .distinct()
                  .flatMap(pool -> cache.capiMachinesOnNode(pool).stream())
                  .forEach(c -> drain.queue().add(Keys.of(c)));
            }));
    cache.onPool(
        Handlers.onAnyChange(
            (old, p) -> {
              String name = p.getMetadata().getName();
              if (PoolChange.concernsBoundMachines(old, p)) {
                cache
                    .machinesBoundTo(name)
                    .forEach(
                        m -> {
                          eviction.queue().add(Keys.of(m));
                          orphans.queue().add(Keys.of(m));
                        });
              }
              cache.capiMachinesOnNode(name).forEach(c -> drain.queue().add(Keys.of(c)));
              drainCancel.queue().add(name);
              health.queue().add(name);
            }));
    cache.onLease(
        Handlers.onAnyChange((old, lease) -> health.queue().add(lease.getMetadata().getName())));
    try {
      cache.start(Duration.ofSeconds(60));
    } catch (Exception e) {
      stopIfClosed(); // close() stopped the informers we waited for
      throw e;
    }
    synchronized (lifecycle) {
      stopIfClosed();
      InformerWatchdog dog =
          new InformerWatchdog(cache.informers(), informerDownThreshold, Clock.systemUTC());
      dog.start();
      running.add(dog);
      watchdog = dog;
      eviction.start(options.workers());
      drain.start(options.workers());
      drainCancel.start(1);
      health.start(options.healthWorkers());
      orphans.start(1);
      started = true;
    }
    LOG.info(
        "controller started: loops eviction, drain, drain-cancel, health, orphans; CAPI machine selector \"{}\"; resync {}; grace period {}; drain timeout {}; max concurrent drains {}",
        options.capiMachineSelector(),
        DurationFlag.format(options.resyncPeriod()),
        DurationFlag.format(options.gracePeriod()),
        options.drainPolicy().drainTimeout().isZero()
            ? "off"
            : DurationFlag.format(options.drainPolicy().drainTimeout()),
        options.drainPolicy().maxConcurrentDrains() == 0
            ? "unlimited"
            : options.drainPolicy().maxConcurrentDrains());

    return this;
  }

  /**
   * Stops all loops together (no new keys; passes in flight finish, {@link Loop#SHUTDOWN_GRACE} at
   * most), then closes the rest in reverse start order, the caches last. A {@link #start()} running
   * on another thread ends with {@link Stopped} and starts nothing more.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      closed = true;
      Loop.closeAll(loops, Loop.SHUTDOWN_GRACE);
      loops.clear();
      for (int i = running.size() - 1; i >= 0; i--) {
        try {
          running.get(i).close();
        } catch (Exception e) {
          LOG.debug("close", e);
        }
      }
      running.clear();
    }
  }

  private void stopIfClosed() {
    synchronized (lifecycle) {
      if (closed) {
        throw new Stopped();
      }
    }
  }

  /** {@link #start()} gave up because {@link #close()} was called: a stop, not a failure. */
  public static final class Stopped extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super("the controller was stopped while it started");
    }
  }
}

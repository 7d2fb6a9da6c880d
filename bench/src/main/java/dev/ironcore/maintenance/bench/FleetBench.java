package dev.ironcore.maintenance.bench;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePoolV1alpha2;
import dev.ironcore.maintenance.api.patch.PatchTarget;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.devtools.sim.PoolletSimulator;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * The controller at fleet scale on a local kube-apiserver (testkit {@link LocalControlPlane}):
 * Machines over pools (each pool with a Lease and a CAPI Machine on its node), the controller as
 * its own process with the shipped JVM flags. Measures the time from spawn to caches synced ({@code
 * /readyz}) and RSS; 1,000 pools whose Leases are renewed once and then stop (each must turn
 * Ready=Unknown within grace + 1 s, written once); and drains of pools with 1,000 bound Machines —
 * controller (CAPI Machine DELETE → pre-drain hook removed, poollet simulator at zero delay)
 * against a bare fabric8 client doing the same DELETEs and finalizer removals — alternating bare,
 * controller, controller, bare, with the API server's request counter read around each.
 *
 * <pre>
 * FleetBench --work DIR --out FILE.md --controlplane-dir DIR --repo DIR --image-jvm image/target/jvm
 *            --deployment controller_deployment.yaml [--machines 10000] [--pools 1000] [--drain-size 1000]
 *            [--grace-seconds 10] [--health-port 21210]
 * </pre>
 */
public final class FleetBench {
  static final String NS = "fleet";
  static final String POOL_LABEL = "bench.ironcore.dev/pool";
  static final int DRAIN_RUNS = 4;

  private final KubernetesClient client;
  private final int machines;
  private final int pools;
  private final int drainSize;
  private final ExecutorService writers = Executors.newFixedThreadPool(16);
  private SharedIndexInformer<Machine> machineInformer;
  private SharedIndexInformer<CapiMachine> capiInformer;
  private final Map<String, Long> unknownSeen = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> updatesAfterUnknown = new ConcurrentHashMap<>();

  FleetBench(KubernetesClient client, int machines, int pools, int drainSize) {
    this.client = client;
    this.machines = machines;
    this.pools = pools;
    this.drainSize = drainSize;
  }

  static String pool(int i) {
    return String.format("pool-%04d", i);
  }

  /**
   * Pools 0..3 carry {@code drainSize} Machines each (the drain runs); the rest share the others.
   */
  int poolOfMachine(int i) {
    int drained = DRAIN_RUNS * drainSize;
    return i < drained ? i / drainSize : DRAIN_RUNS + (i - drained) % (pools - DRAIN_RUNS);
  }

  /**
   * Creates pools, Leases, CAPI Machines (with nodeRef) and Machines; returns the seconds taken.
   */
  double populate(String machineSpecJson) throws Exception {
    long t0 = System.nanoTime();
    client
        .resource(
            "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + NS + "\"}}")
        .create();
    parallel(
        pools,
        i -> {
          String p = pool(i);
          client
              .resource(
                  "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"MachinePool\",\"metadata\":{\"name\":\""
                      + p
                      + "\",\"labels\":{\"topology.ironcore.dev/zone\":\"zone-a\"}},\"spec\":{\"providerID\":\"ironcore://"
                      + p
                      + "\"}}")
              .create();
          client
              .resource(
                  "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\""
                      + p
                      + "\",\"namespace\":\""
                      + Names.LEASE_NAMESPACE
                      + "\"},\"spec\":{\"holderIdentity\":\""
                      + p
                      + "\",\"leaseDurationSeconds\":40,\"renewTime\":\""
                      + microTime()
                      + "\"}}")
              .create();
          client
              .resource(
                  "{\"apiVersion\":\"cluster.x-k8s.io/v1beta2\",\"kind\":\"Machine\",\"metadata\":{\"name\":\"node-"
                      + p
                      + "\",\"namespace\":\""
                      + NS
                      + "\",\"labels\":{\"cluster.x-k8s.io/cluster-name\":\"prod\"},\"annotations\":{\""
                      + Names.PRE_DRAIN_HOOK_ANNOTATION
                      + "\":\""
                      + Names.PRE_DRAIN_HOOK_VALUE
                      + "\"},\"finalizers\":[\""
                      + Names.CAPI_MACHINE_FINALIZER
                      + "\",\""
                      + Names.CLEANUP_FINALIZER
                      + "\"]},\"spec\":{\"clusterName\":\"prod\","
                      + "\"bootstrap\":{\"dataSecretName\":\"node-"
                      + p
                      + "-bootstrap\"},\"infrastructureRef\":{\"apiGroup\":"
                      + "\"infrastructure.cluster.x-k8s.io\",\"kind\":\"IronCoreMachine\",\"name\":\"node-"
                      + p
                      + "\"}}}")
              .create();
          client
              .genericKubernetesResources("cluster.x-k8s.io/v1beta2", "Machine")
              .inNamespace(NS)
              .withName("node-" + p)
              .subresource("status")
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  "{\"status\":{\"nodeRef\":{\"name\":\"" + p + "\"}}}");
        });
    parallel(
        machines,
        i -> {
          String p = pool(poolOfMachine(i));
          client
              .resource(
                  "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"Machine\",\"metadata\":{\"name\":\""
                      + String.format("vm-%05d", i)
                      + "\",\"namespace\":\""
                      + NS
                      + "\",\"labels\":{\""
                      + POOL_LABEL
                      + "\":\""
                      + p
                      + "\",\"app.kubernetes.io/name\":\"web\"},\"finalizers\":[\""
                      + Names.POOLLET_FINALIZER
                      + "\"]},\"spec\":"
                      + machineSpecJson.replace(
                          "\"machinePoolRef\":{\"name\":\"pool-zone-a-042\"}",
                          "\"machinePoolRef\":{\"name\":\"" + p + "\"}")
                      + "}")
              .create();
        });
    return (System.nanoTime() - t0) / 1e9;
  }

  private static String microTime() {
    return Instant.now()
        .toString()
        .replaceFirst("(\\.\\d{6})\\d*Z$", "$1Z")
        .replaceFirst(":(\\d\\d)Z$", ":$1.000000Z");
  }

  private void parallel(int n, IntConsumer task) throws Exception {
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int k = i;
      done.add(writers.submit(() -> task.accept(k)));
    }
    for (Future<?> f : done) {
      f.get();
    }
  }

  /** The bench's own view of the cluster: informers (one LIST and one WATCH each, no polling). */
  void observe() throws Exception {
    machineInformer = client.resources(Machine.class).inNamespace(NS).inform();
    machineInformer.addIndexers(
        Map.of("pool", m -> m.boundPoolName() == null ? List.of() : List.of(m.boundPoolName())));
    capiInformer = client.resources(CapiMachine.class).inNamespace(NS).inform();
    // pools in v1alpha2: the storage version, which the controller writes and kubectl shows by
    // default; a v1alpha1 watch would add a conversion webhook call per event to the API server's
    // load on the same 2 cores, which is the bench's cost, not the controller's
    client
        .resources(MachinePoolV1alpha2.class)
        .inform(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(MachinePoolV1alpha2 p) {
                onUpdate(null, p);
              }

              @Override
              public void onUpdate(MachinePoolV1alpha2 old, MachinePoolV1alpha2 p) {
                String name = p.getMetadata().getName();
                Condition ready =
                    Conditions.find(
                        p.getStatus() == null ? null : p.getStatus().getConditions(),
                        Names.READY_CONDITION);
                if (unknownSeen.containsKey(name)
                    && old != null
                    && !old.getMetadata()
                        .getResourceVersion()
                        .equals(p.getMetadata().getResourceVersion())) {
                  updatesAfterUnknown
                      .computeIfAbsent(name, k -> new AtomicInteger())
                      .incrementAndGet();
                }
                if (ready != null && "Unknown".equals(ready.getStatus())) {
                  unknownSeen.putIfAbsent(name, System.nanoTime());
                }
              }

              @Override
              public void onDelete(MachinePoolV1alpha2 p, boolean unknown) {}
            });
  }

  /** Lease test figures. */
  record LeaseResult(
      int pools,
      int inTime,
      double maxLateSeconds,
      double p50LateSeconds,
      double p99LateSeconds,
      long statusWrites,
      int extraUpdates,
      double renewSeconds,
      int poolUnknownEvents,
      double eventsAfterSeconds) {}

  /**
   * Renews every Lease once, then nothing; waits until every pool is Unknown (or grace + 60 s).
   *
   * @param timesCsv where each pool's times go (CSV: pool, renewed, Unknown seen; wall-clock ms)
   */
  LeaseResult leasesStop(Duration grace, Path timesCsv) throws Exception {
    Map<String, Long> renewed = new ConcurrentHashMap<>();
    ApiRequestCounts before = ApiRequestCounts.read(client);
    long t0 = System.nanoTime();
    parallel(
        pools,
        i -> {
          String p = pool(i);
          client
              .leases()
              .inNamespace(Names.LEASE_NAMESPACE)
              .withName(p)
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  "{\"spec\":{\"renewTime\":\"" + microTime() + "\"}}");
          renewed.put(p, System.nanoTime());
        });
    double renewSeconds = (System.nanoTime() - t0) / 1e9;
    long deadline = System.nanoTime() + grace.plusSeconds(60).toNanos();
    while (unknownSeen.size() < pools && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long allUnknown = System.nanoTime();
    // the PoolUnknown Events follow their conditions (held by the controller until the burst of
    // status writes is over): wait until every pool has one, 60 s at most
    int events = poolUnknownEvents();
    while (events < pools && System.nanoTime() < allUnknown + Duration.ofSeconds(60).toNanos()) {
      Thread.sleep(250);
      events = poolUnknownEvents();
    }
    double eventsAfter = (System.nanoTime() - allUnknown) / 1e9;
    Thread.sleep(3000); // a second write would show up here
    ApiRequestCounts delta = ApiRequestCounts.read(client).minus(before);
    List<Double> late = new ArrayList<>();
    int inTime = 0;
    for (var e : renewed.entrySet()) {
      Long seen = unknownSeen.get(e.getKey());
      double l =
          seen == null
              ? Double.POSITIVE_INFINITY
              : (seen - e.getValue()) / 1e9 - grace.toMillis() / 1e3;
      late.add(l);
      if (l <= 1.0) {
        inTime++;
      }
    }
    // per pool, wall-clock milliseconds: renewed (the bench's PATCH answered), seen Unknown
    long wallMinusNano = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    StringBuilder csv = new StringBuilder("pool,renewed_ms,unknown_seen_ms\n");
    renewed.forEach(
        (p, r) -> {
          Long u = unknownSeen.get(p);
          csv.append(p)
              .append(',')
              .append((r + wallMinusNano) / 1_000_000L)
              .append(',')
              .append(u == null ? "" : String.valueOf((u + wallMinusNano) / 1_000_000L))
              .append('\n');
        });
    Files.writeString(timesCsv, csv);
    late.sort(null);
    int extra = updatesAfterUnknown.values().stream().mapToInt(AtomicInteger::get).sum();
    return new LeaseResult(
        pools,
        inTime,
        late.get(late.size() - 1),
        late.get(late.size() / 2),
        late.get((int) Math.ceil(0.99 * late.size()) - 1),
        delta.get("PATCH machinepools.compute/status")
            + delta.get("PUT machinepools.compute/status"),
        extra,
        renewSeconds,
        events,
        eventsAfter);
  }

  /** How many pools have a {@code PoolUnknown} Event (cluster-scoped pools: namespace default). */
  private int poolUnknownEvents() {
    return (int)
        client
            .v1()
            .events()
            .inNamespace("default")
            .withField("reason", "PoolUnknown")
            .list()
            .getItems()
            .stream()
            .map(e -> e.getInvolvedObject().getName())
            .distinct()
            .count();
  }

  /** One drain's figures. */
  record DrainResult(String who, String pool, double seconds, ApiRequestCounts requests) {}

  /**
   * The bare client: 2 threads (the controller's eviction workers), each DELETE then finalizer
   * removal.
   */
  DrainResult bareDrain(int poolIndex) throws Exception {
    String p = pool(poolIndex);
    List<String> names =
        machineInformer.getIndexer().byIndex("pool", p).stream()
            .map(m -> m.getMetadata().getName())
            .sorted()
            .toList();
    ApiRequestCounts before = ApiRequestCounts.read(client);
    ExecutorService two = Executors.newFixedThreadPool(2);
    long t0 = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (String n : names) {
      done.add(
          two.submit(
              () -> {
                client.resources(Machine.class).inNamespace(NS).withName(n).delete();
                PatchTarget.of(client, Machine.class, NS, n)
                    .patch(
                        PatchContext.of(PatchType.JSON),
                        "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/0\",\"value\":\""
                            + Names.POOLLET_FINALIZER
                            + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    awaitPoolEmpty(p);
    double seconds = (System.nanoTime() - t0) / 1e9;
    two.shutdown();
    Thread.sleep(2000);
    return new DrainResult(
        "bare fabric8 client", p, seconds, ApiRequestCounts.read(client).minus(before));
  }

  /** The controller: DELETE the pool's CAPI Machine, wait until the pre-drain hook is gone. */
  DrainResult controllerDrain(int poolIndex) throws Exception {
    String p = pool(poolIndex);
    try (PoolletSimulator poollet = new PoolletSimulator(new KubeWriter(client), Duration.ZERO)) {
      poollet.start();
      Thread.sleep(1000); // the simulator's informer lists once
      ApiRequestCounts before = ApiRequestCounts.read(client);
      long t0 = System.nanoTime();
      client.resources(CapiMachine.class).inNamespace(NS).withName("node-" + p).delete();
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (true) {
        CapiMachine c = capiInformer.getStore().getByKey(NS + "/node-" + p);
        var annotations = c == null ? null : c.getMetadata().getAnnotations();
        if (c != null
            && c.getMetadata().getDeletionTimestamp() != null
            && (annotations == null || !annotations.containsKey(Names.PRE_DRAIN_HOOK_ANNOTATION))) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("hook of node-" + p + " not removed within 5 min");
        }
        Thread.sleep(5);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!machineInformer.getIndexer().byIndex("pool", p).isEmpty()) {
        throw new IllegalStateException(
            "hook of node-" + p + " removed while Machines are left on the pool");
      }
      Thread.sleep(2000);
      return new DrainResult(
          "controller + poollet simulator",
          p,
          seconds,
          ApiRequestCounts.read(client).minus(before));
    }
  }

  private void awaitPoolEmpty(String p) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (!machineInformer.getIndexer().byIndex("pool", p).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Machines of " + p + " not gone within 5 min");
      }
      Thread.sleep(5);
    }
  }

  void close() {
    writers.shutdownNow();
  }

  /** Milliseconds from spawn until {@code /readyz} answers 200. */
  static double awaitReady(ChildProcess p, int port) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(200)).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (true) {
      try {
        if (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return (System.nanoTime() - p.startNanos()) / 1e6;
        }
      } catch (java.io.IOException e) {
        // not listening yet
      }
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("controller not ready; see " + p.log());
      }
      Thread.sleep(10);
    }
  }

  /**
   * Runs the fleet benchmark and exits: 0 when the report was written, 1 on any failure (informer
   * threads would otherwise keep a failed run's JVM, and its load, alive).
   */
  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> a = BenchArgs.parse(args);
    Path work = Files.createDirectories(Path.of(a.get("work")));
    Path repo = Path.of(a.get("repo"));
    int machines = Integer.parseInt(a.getOrDefault("machines", "10000"));
    int pools = Integer.parseInt(a.getOrDefault("pools", "1000"));
    int drainSize = Integer.parseInt(a.getOrDefault("drain-size", "1000"));
    Duration grace = Duration.ofSeconds(Integer.parseInt(a.getOrDefault("grace-seconds", "10")));
    int healthPort = Integer.parseInt(a.getOrDefault("health-port", "21210"));
    ShippedSettings shipped = ShippedSettings.read(Path.of(a.get("deployment")));

    try (LocalControlPlane cp =
        LocalControlPlane.start(Path.of(a.get("controlplane-dir")), work.resolve("controlplane"))) {
      // the CRDs convert v1alpha1 <-> v1alpha2 through our webhook: a conversion server in this JVM
      CrdsWithConversion.install(cp, "crds", "capi-local");
      // the shipped namespaces and RBAC: the controller runs with its ServiceAccount's token
      for (String overlay : List.of("namespaces", "rbac")) {
        cp.kubectl("apply", "-k", repo.resolve("manifests").resolve(overlay).toString()).orThrow();
      }
      cp.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=120s");
      KubernetesClient client = cp.newClient();
      FleetBench bench = new FleetBench(client, machines, pools, drainSize);
      String spec;
      try (var in = FleetBench.class.getResourceAsStream("/reviews/ironcore-machine-create.json")) {
        var review = dev.ironcore.maintenance.api.json.JsonMappers.shared().readTree(in);
        spec = review.get("request").get("object").get("spec").toString();
      }
      System.out.printf(
          "fleet bench: creating %d pools (Lease, CAPI Machine each) and %d Machines%n",
          pools, machines);
      double populateSeconds = bench.populate(spec);
      bench.observe();
      System.out.println(
          "fleet bench: waiting until the machine is quiet (CPU busy < 25% for 3 s)");
      double settleSeconds = CpuSettle.await(0.25, 3, Duration.ofSeconds(120));

      if (a.containsKey("hold")) {
        // for one-off experiments: the populated, settled API server stays up for --hold seconds
        System.out.println("fleet bench: holding the populated API server, " + cp.kubeconfig());
        Thread.sleep(Long.parseLong(a.get("hold")) * 1000);
        return;
      }
      ImageJava java = new ImageJava(Path.of(a.get("image-jvm")));
      List<String> cmd = java.command("dev.ironcore.maintenance.controller.ControllerMain");
      cmd.addAll(
          List.of(
              "--health-probe-bind-address=127.0.0.1:" + healthPort,
              "--metrics-bind-address=0",
              "--machine-pool-lifecycle-grace-period=" + grace.toSeconds() + "s"));
      shipped.tuningArgs().stream()
          .filter(arg -> !arg.startsWith("--machine-pool-lifecycle-grace-period"))
          .forEach(cmd::add);
      Map<String, String> env = new java.util.HashMap<>(java.env(shipped.env()));
      // as installed: its pod's environment (fabric8's in-cluster configuration, a token of the
      // shipped ServiceAccount, its RBAC), no kubeconfig (parsing one loads every model class
      // fabric8 knows: about 0.2 s more CPU and 6 MiB more RSS at start, bench/analysis.md)
      env.putAll(
          cp.inClusterEnvironment(
              "ironcore-maintenance-system",
              "ironcore-maintenance-controller",
              work.resolve("serviceaccount")));
      System.out.println("fleet bench: starting the controller");
      FleetReport report =
          new FleetReport(
              machines, pools, drainSize, grace, shipped, populateSeconds, settleSeconds);
      try (ChildProcess controller = ChildProcess.start(cmd, env, work.resolve("controller.log"))) {
        report.readyMillis = awaitReady(controller, healthPort);
        report.readyCpuMillis = controller.cpuMillis();
        Thread.sleep(1000);
        report.rss.put("caches synced (+1 s)", controller.rssMiB());
        System.out.println("fleet bench: Leases renewed once, then stopped");
        report.lease = bench.leasesStop(grace, work.resolve("lease-times.csv"));
        report.rss.put("after Lease test", controller.rssMiB());
        int[] order = {0, 1, 2, 3};
        for (int run : order) {
          boolean bare = run == 0 || run == 3;
          System.out.printf(
              "fleet bench: drain %d of %d (%s)%n",
              run + 1, order.length, bare ? "bare client" : "controller");
          report.drains.add(bare ? bench.bareDrain(run) : bench.controllerDrain(run));
        }
        report.rss.put("after drains", controller.rssMiB());
        report.peakRss = controller.peakRssMiB();
        if (!controller.isAlive()) {
          throw new IllegalStateException("controller died; see " + controller.log());
        }
      } finally {
        bench.close();
      }
      Files.writeString(Path.of(a.get("out")), report.render());
      System.out.println("fleet bench: wrote " + a.get("out"));
      client.close();
    }
  }
}

package dev.ironcore.maintenance.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Our webhook server against the controller-runtime reference ({@code bench/reference-go}) over TLS
 * on loopback, with h2load: start-up (process spawn → first answered review), the first 10,000
 * requests (cold), throughput at saturation and latency at a fixed 1,000 req/s, for HTTP/2 and
 * HTTP/1.1 keep-alive and for a CAPI Machine and an IronCore Machine CREATE review; RSS after each
 * phase. Servers alternate A B B A …, so both see the same machine load.
 *
 * <pre>
 * WebhookBench --work DIR --out FILE.md --image-jvm image/target/jvm --deployment webhook_deployment.yaml
 *              --reference BIN [--rounds 2] [--seconds 5] [--port 21201]
 *              [--controlplane-dir DIR [--bound-machines 100] [--hold SECONDS]]
 * </pre>
 *
 * With {@code --controlplane-dir} our server runs as installed, against a cluster ({@link
 * WebhookCluster}: the webhook pod's in-cluster environment, eviction warnings on), and each of our
 * instances also answers MachinePool writes that add a {@code NoExecute} taint after the cold phase
 * (each a LIST of the pool's bound Machines; latency and RSS reported); the reference does only its
 * CAPI mutation.
 *
 * <p>Our server runs on the image's Java ({@link ImageJava}) with the environment ({@code
 * JAVA_TOOL_OPTIONS}, …) and tuning flags of the shipped Deployment ({@link ShippedSettings}), plus
 * context runs with no JVM flags at all and with the shipped flags but without the AOT cache.
 *
 * <pre>
 * </pre>
 */
public final class WebhookBench {
  static final String CAPI = "capi-machine";
  static final String IRONCORE = "machine";
  static final int COLD_REQUESTS = 10_000;
  static final int FIXED_RATE = 1_000;

  /** A server to measure: its name and its command line for a port. */
  record Server(String name, IntFunction<List<String>> command, Map<String, String> env) {}

  /** One started instance's figures. */
  static final class Instance {
    final String server;
    final int round;
    double readyMillis;
    double readyCpuMillis;
    final Map<String, Double> rssMiB = new LinkedHashMap<>();
    final Map<String, H2load.Result> runs = new LinkedHashMap<>();
    double peakRssMiB;

    Instance(String server, int round) {
      this.server = server;
      this.round = round;
    }
  }

  static final String POOL_LOOKUPS = "lookups h2 machinepool";
  static final int LOOKUPS = 200;

  private final Path work;
  private final int seconds;
  private final int port;
  private WebhookCluster cluster;
  private Path caCrt;
  private final Map<String, Path> reviews = new LinkedHashMap<>();
  private final Path poolReview;

  WebhookBench(Path work, int seconds, int port) throws IOException {
    this.work = work;
    this.seconds = seconds;
    this.port = port;
    for (String name : List.of(CAPI, IRONCORE)) {
      Path file = work.resolve(name + "-create.json");
      String resource =
          "/reviews/" + ("machine".equals(name) ? "ironcore-machine" : name) + "-create.json";
      try (var in = WebhookBench.class.getResourceAsStream(resource)) {
        Files.write(file, in.readAllBytes());
      }
      reviews.put(name, file);
    }
    poolReview = work.resolve("machinepool-taint-update.json");
    try (var in = WebhookBench.class.getResourceAsStream(WebhookCluster.REVIEW)) {
      Files.write(poolReview, in.readAllBytes());
    }
  }

  /** Review sizes in bytes, for the report. */
  Map<String, Long> reviewSizes() throws IOException {
    Map<String, Long> sizes = new LinkedHashMap<>();
    for (var e : reviews.entrySet()) {
      sizes.put(e.getKey(), Files.size(e.getValue()));
    }
    return sizes;
  }

  /**
   * Starts {@code server}, measures every phase, stops it.
   *
   * @param full false for a short saturation-only run (context figures)
   */
  Instance measure(Server server, int round, boolean full) throws Exception {
    Instance in = new Instance(server.name(), round);
    String tag = server.name() + "-r" + round;
    Path dir = Files.createDirectories(work.resolve(tag));
    try (ChildProcess p =
        ChildProcess.start(server.command().apply(port), server.env(), dir.resolve("server.log"))) {
      in.readyMillis = awaitReady(p, dir);
      in.readyCpuMillis = p.cpuMillis();
      in.rssMiB.put("ready", p.rssMiB());
      if (full) {
        in.runs.put(
            "cold h2 " + CAPI,
            run(
                p,
                dir,
                "cold",
                false,
                CAPI,
                List.of("-n", Integer.toString(COLD_REQUESTS), "-c", "4", "-m", "16"),
                true));
        in.rssMiB.put("after cold", p.rssMiB());
      }
      if (cluster != null && server.env().containsKey("KUBERNETES_SERVICE_HOST")) {
        lookups(in, p, dir, full);
      }
      for (boolean http1 : List.of(false, true)) {
        for (String review : full ? List.of(CAPI, IRONCORE) : List.of(CAPI)) {
          List<String> load = http1 ? List.of("-c", "16") : List.of("-c", "4", "-m", "16");
          List<String> timed = new ArrayList<>(load);
          timed.addAll(List.of("-D", Integer.toString(seconds), "--warm-up-time", "1"));
          in.runs.put(
              "saturation " + proto(http1) + " " + review,
              run(p, dir, "saturation", http1, review, timed, false));
        }
        if (!full) {
          break;
        }
      }
      in.rssMiB.put("after saturation", p.rssMiB());
      in.peakRssMiB = p.peakRssMiB();
      if (full) {
        for (boolean http1 : List.of(false, true)) {
          for (String review : List.of(CAPI, IRONCORE)) {
            int clients = 10;
            List<String> load =
                List.of(
                    "-c",
                    Integer.toString(clients),
                    "--rps",
                    Integer.toString(FIXED_RATE / clients),
                    "-D",
                    Integer.toString(seconds + 3));
            in.runs.put(
                "rate " + proto(http1) + " " + review,
                run(p, dir, "rate", http1, review, load, true));
          }
        }
        in.rssMiB.put("after fixed rate", p.rssMiB());
        in.peakRssMiB = p.peakRssMiB();
      }
      if (!p.isAlive()) {
        throw new IllegalStateException(server.name() + " died; see " + p.log());
      }
    }
    return in;
  }

  /**
   * Eviction-warning lookups: one MachinePool review whose answer must carry the warning for every
   * bound Machine (else the server did not read the cluster and the run is refused), then, in a
   * full run, {@value #LOOKUPS} more one at a time over HTTP/2 (latencies logged).
   */
  private void lookups(Instance in, ChildProcess p, Path dir, boolean full) throws Exception {
    String url =
        "https://127.0.0.1:"
            + port
            + dev.ironcore.maintenance.server.AdmissionRoutes.VALIDATE_MACHINEPOOL;
    String expected = cluster.boundMachines() + " bound Machines do not tolerate";
    String body = "";
    // the server asks discovery on a thread of its own after it listens: allow it a few seconds
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!body.contains(expected) && System.nanoTime() < deadline) {
      body = WebhookCluster.reviewOnce(url, caCrt);
      if (!body.contains(expected)) {
        Thread.sleep(200);
      }
    }
    if (!body.contains(expected)) {
      throw new IllegalStateException(
          in.server
              + ": no eviction warning '"
              + expected
              + "' from the cluster; last answer "
              + body
              + "; see "
              + p.log());
    }
    if (full) {
      in.runs.put(
          POOL_LOOKUPS,
          H2load.run(
              url,
              poolReview,
              false,
              List.of("-n", Integer.toString(LOOKUPS), "-c", "1"),
              dir.resolve("lookups.log"),
              dir.resolve("lookups.txt")));
    }
    in.rssMiB.put("after lookups", p.rssMiB());
  }

  static String proto(boolean http1) {
    return http1 ? "h1" : "h2";
  }

  private H2load.Result run(
      ChildProcess p,
      Path dir,
      String phase,
      boolean http1,
      String review,
      List<String> load,
      boolean log) {
    String name = phase + "-" + proto(http1) + "-" + review;
    H2load.Result r =
        H2load.run(
            url(review),
            reviews.get(review),
            http1,
            load,
            log ? dir.resolve(name + ".log") : null,
            dir.resolve(name + ".txt"));
    // a timed run (-D) cuts the requests in flight at its end: those have no status; every
    // answered request must be 2xx, and a counted run (-n) must answer all
    boolean counted = load.contains("-n");
    if (r.errors() > 0 || (counted && (r.failed() > 0 || r.ok2xx() < r.succeeded()))) {
      throw new IllegalStateException(
          name
              + ": "
              + r.failed()
              + " failed, "
              + r.errors()
              + " not 2xx; see "
              + dir.resolve(name + ".txt")
              + " and "
              + p.log());
    }
    return r;
  }

  private String url(String review) {
    return "https://127.0.0.1:" + port + "/mutate/" + review;
  }

  /**
   * Milliseconds from spawning the process until it answers a review with 2xx over HTTP/2: polls
   * the port every 2 ms, then sends single requests until one succeeds.
   */
  private double awaitReady(ChildProcess p, Path dir) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!portOpen()) {
      check(p, deadline);
      Thread.sleep(2);
    }
    while (true) {
      H2load.Result r =
          H2load.run(
              url(CAPI),
              reviews.get(CAPI),
              false,
              List.of("-n", "1", "-c", "1"),
              null,
              dir.resolve("ready.txt"));
      if (r.ok2xx() == 1) {
        return (System.nanoTime() - p.startNanos()) / 1e6;
      }
      check(p, deadline);
      Thread.sleep(2);
    }
  }

  private static void check(ChildProcess p, long deadline) {
    if (!p.isAlive()) {
      throw new IllegalStateException("server exited before it was ready; see " + p.log());
    }
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("server not ready after 60 s; see " + p.log());
    }
  }

  private boolean portOpen() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 100);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static String f(double v) {
    return Double.isNaN(v)
        ? "–"
        : String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }

  /**
   * Runs the webhook benchmark and exits: 0 when the report was written (or a --hold ended), 1 on
   * any failure (the in-process conversion server's threads would otherwise keep the JVM, and with
   * it make bench, waiting).
   */
  public static void main(String[] args) {
    try {
      main0(args);
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void main0(String[] args) throws Exception {
    Map<String, String> a = BenchArgs.parse(args);
    Path work = Files.createDirectories(Path.of(a.get("work")));
    WebhookBench bench =
        new WebhookBench(
            work,
            Integer.parseInt(a.getOrDefault("seconds", "5")),
            Integer.parseInt(a.getOrDefault("port", "21201")));
    Path certs = work.resolve("certs");
    dev.ironcore.maintenance.certs.GenerateCerts.run(
        certs, "bench-webhook", "bench", java.time.Duration.ofDays(2));

    bench.caCrt = certs.resolve("ca.crt");
    ShippedSettings shipped = ShippedSettings.read(Path.of(a.get("deployment")));
    ImageJava java = new ImageJava(Path.of(a.get("image-jvm")));
    Map<String, String> clusterEnv = new java.util.HashMap<>();
    if (a.containsKey("controlplane-dir")) {
      int bound = Integer.parseInt(a.getOrDefault("bound-machines", "100"));
      System.out.printf(
          "webhook bench: local API server with our CRDs and %d Machines bound to %s%n",
          bound, WebhookCluster.POOL);
      bench.cluster = WebhookCluster.start(Path.of(a.get("controlplane-dir")), work, bound);
      clusterEnv.putAll(bench.cluster.podEnvironment(work.resolve("serviceaccount")));
      if (a.containsKey("hold")) {
        // for one-off experiments: the cluster stays up for --hold seconds, nothing is measured
        System.out.println(
            "webhook bench: holding the API server, "
                + bench.cluster.kubeconfig()
                + "; the webhook pod's environment: "
                + clusterEnv.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .sorted()
                    .collect(Collectors.joining(" ")));
        try {
          Thread.sleep(Long.parseLong(a.get("hold")) * 1000);
        } finally {
          bench.cluster.close();
        }
        return;
      }
    }
    try {
      run(a, bench, shipped, java, certs, clusterEnv);
    } finally {
      if (bench.cluster != null) {
        bench.cluster.close();
      }
    }
  }

  private static void run(
      Map<String, String> a,
      WebhookBench bench,
      ShippedSettings shipped,
      ImageJava java,
      Path certs,
      Map<String, String> clusterEnv)
      throws Exception {
    int rounds = Integer.parseInt(a.getOrDefault("rounds", "2"));
    Server ours =
        new Server(
            "ours",
            // the Deployment's probe and metrics ports too (on any free port): one more acceptor
            // and selector thread each
            port ->
                ourCommand(
                    java,
                    Stream.concat(
                            shipped.tuningArgs().stream(),
                            Stream.of(
                                "--health-probe-bind-address=127.0.0.1:0",
                                "--metrics-bind-address=127.0.0.1:0"))
                        .toList(),
                    certs,
                    port),
            with(java.env(shipped.env()), clusterEnv));
    Server reference =
        new Server(
            "reference",
            port ->
                List.of(
                    a.get("reference"),
                    "--port",
                    Integer.toString(port),
                    "--bind-address",
                    "127.0.0.1",
                    "--cert-dir",
                    certs.toString()),
            Map.of());
    Server defaults =
        new Server(
            "ours, JVM defaults",
            port -> ourCommand(java, List.of(), certs, port),
            with(Map.of(), clusterEnv));

    List<Instance> results = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      List<Server> order = round % 2 == 1 ? List.of(ours, reference) : List.of(reference, ours);
      for (Server s : order) {
        System.out.printf("webhook bench: round %d, %s%n", round, s.name());
        results.add(bench.measure(s, round, true));
      }
    }
    // context: what the settings buy, and what the AOT cache buys
    List<Instance> context = new ArrayList<>();
    System.out.println("webhook bench: context run, our server with JVM defaults");
    context.add(bench.measure(defaults, 1, false));
    Map<String, String> noCache = new java.util.HashMap<>(ours.env());
    noCache.computeIfPresent(
        "JAVA_TOOL_OPTIONS", (k, v) -> v.replaceAll("\\s*-XX:AOTCache=\\S+", ""));
    System.out.println("webhook bench: context run, shipped settings without the AOT cache");
    context.add(
        bench.measure(
            new Server("ours, shipped settings without the AOT cache", ours.command(), noCache),
            1,
            false));
    Files.writeString(
        Path.of(a.get("out")),
        WebhookReport.render(
            results,
            context,
            bench.reviewSizes(),
            shipped,
            bench.cluster == null ? 0 : bench.cluster.boundMachines()));
    System.out.println("webhook bench: wrote " + a.get("out"));
  }

  private static Map<String, String> with(Map<String, String> env, Map<String, String> more) {
    Map<String, String> all = new LinkedHashMap<>(env);
    all.putAll(more);
    return all;
  }

  private static List<String> ourCommand(ImageJava java, List<String> args, Path certs, int port) {
    List<String> cmd = java.command("dev.ironcore.maintenance.server.WebhookServerMain");
    cmd.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--bind-address",
            "127.0.0.1",
            "--tls-cert-file",
            certs.resolve("tls.crt").toString(),
            "--tls-private-key-file",
            certs.resolve("tls.key").toString()));
    cmd.addAll(args);
    return cmd;
  }
}

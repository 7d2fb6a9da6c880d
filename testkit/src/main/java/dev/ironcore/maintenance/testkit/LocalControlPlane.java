package dev.ironcore.maintenance.testkit;

import dev.ironcore.maintenance.certs.SslContexts;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local etcd and kube-apiserver on free loopback ports, for tests and {@code make run}.
 *
 * <p>{@link #start(Path, Path)} writes into {@code workDir}: {@code pki/} (CA, serving, admin and
 * service-account keys as PEM), {@code etcd/} (data; deleted again by {@link #close()}), {@code
 * etcd.log}, {@code kube-apiserver.log} and {@code kubeconfig} (admin, user {@code admin} in group
 * {@code system:masters}, certificate data embedded). It returns once {@code /readyz} answers 200
 * and namespace {@code default} exists. RBAC is on; the ServiceAccount admission plugin is off.
 *
 * <p>{@link #close()} stops both processes (SIGTERM, then SIGKILL after 10 s); a JVM shutdown hook
 * does the same if close is never called.
 *
 * <p>Faults for tests: {@link #stopApiServer()} and {@link #startApiServer()} (or {@link
 * #restartApiServer()}) stop and start the kube-apiserver alone, on the same port with the same
 * certificates and etcd, so every kubeconfig stays valid and the data survives; {@link
 * #compactEtcd()} compacts etcd's history, so that older resourceVersions can no longer be watched.
 */
public final class LocalControlPlane implements TestCluster, AutoCloseable {
  private int webhookPort;

  /** How long {@link #start} waits for etcd, then for the API server. */
  public static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private static final Logger LOG = LoggerFactory.getLogger(LocalControlPlane.class);
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);
  private static final int LOG_TAIL_LINES = 40;
  private static final int START_ATTEMPTS = 3;

  private final Path binDir;
  private final Path workDir;
  private final ControlPlanePki pki;
  private final Kubectl kubectl;
  private final Thread shutdownHook;
  private ManagedProcess etcd;
  private ManagedProcess apiServer;
  private String apiServerUrl;
  private int etcdPort;
  private int apiServerPort;
  private List<String> extraApiServerArgs = List.of();
  private int apiServerStarts;
  private Duration startupTime;
  private KubernetesClient client;
  private boolean closed;
  // set when the processes are being stopped on purpose (close() or the JVM's exit)
  private volatile boolean stopping;

  private LocalControlPlane(Path binDir, Path workDir, ControlPlanePki pki) {
    this.binDir = binDir;
    this.workDir = workDir;
    this.pki = pki;
    this.kubectl = new Kubectl(Kubectl.locate(binDir), workDir.resolve("kubeconfig"));
    this.shutdownHook = new Thread(this::stopOnJvmExit, "local-control-plane-stop");
  }

  /** Same as {@link #start(Path, Path, List)} without extra API server flags. */
  public static LocalControlPlane start(Path binDir, Path workDir) {
    return start(binDir, workDir, List.of());
  }

  /**
   * Starts etcd and kube-apiserver and waits until the API server is ready.
   *
   * @param binDir directory with {@code etcd}, {@code kube-apiserver} and usually {@code kubectl}
   *     (as built by {@code hack/build-controlplane.sh})
   * @param workDir created if missing; reused files in it are overwritten
   * @param extraApiServerArgs appended to the API server's command line, e.g. {@code
   *     --feature-gates=...}
   * @throws IllegalStateException if a binary is missing or a process does not become ready within
   *     {@link #START_TIMEOUT}; the message contains the tail of its log
   */
  public static LocalControlPlane start(
      Path binDir, Path workDir, List<String> extraApiServerArgs) {
    for (String bin : List.of("etcd", "kube-apiserver")) {
      if (!Files.isExecutable(binDir.resolve(bin))) {
        throw new IllegalStateException(
            "no executable " + bin + " in " + binDir + "; build it with `make controlplane`");
      }
    }
    long t0 = System.nanoTime();
    Path abs = workDir.toAbsolutePath();
    try {
      Files.createDirectories(abs);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + abs, e);
    }
    LocalControlPlane cp =
        new LocalControlPlane(
            binDir.toAbsolutePath(), abs, ControlPlanePki.create(abs.resolve("pki")));
    Runtime.getRuntime().addShutdownHook(cp.shutdownHook);
    try {
      cp.startProcesses(extraApiServerArgs);
    } catch (RuntimeException e) {
      cp.close();
      throw e;
    }
    cp.startupTime = Duration.ofNanos(System.nanoTime() - t0);
    LOG.info(
        "local control plane at {} ready in {} ms (work dir {})",
        cp.apiServerUrl,
        cp.startupTime.toMillis(),
        abs);
    return cp;
  }

  private void startProcesses(List<String> extraApiServerArgs) {
    for (int attempt = 1; ; attempt++) {
      List<Integer> ports = FreePorts.pick(3);
      try {
        startEtcd(ports.get(0), ports.get(1));
        startApiServer(ports.get(0), ports.get(2), extraApiServerArgs);
        return;
      } catch (PortInUseException e) {
        stopProcesses();
        if (attempt >= START_ATTEMPTS) {
          throw new IllegalStateException(e.getMessage(), e);
        }
        LOG.warn("port taken while starting the control plane, retrying: {}", e.getMessage());
      }
    }
  }

  private void startEtcd(int clientPort, int peerPort) {
    Path data = workDir.resolve("etcd");
    deleteRecursively(data);
    String clientUrl = "http://127.0.0.1:" + clientPort;
    String peerUrl = "http://127.0.0.1:" + peerPort;
    etcd =
        ManagedProcess.start(
            "etcd",
            List.of(
                binDir.resolve("etcd").toString(),
                "--name=local",
                "--data-dir=" + data,
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=local=" + peerUrl,
                "--initial-cluster-state=new",
                "--unsafe-no-fsync=true",
                "--quota-backend-bytes=" + (512L << 20),
                "--snapshot-count=10000",
                "--log-level=warn"),
            workDir.resolve("etcd.log"),
            childEnv());
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    awaitHttp200(etcd, http, URI.create(clientUrl + "/health"));
  }

  private void startApiServer(int etcdPort, int securePort, List<String> extra) {
    this.etcdPort = etcdPort;
    this.apiServerPort = securePort;
    this.extraApiServerArgs = List.copyOf(extra);
    apiServerStarts++;
    // the first run logs to kube-apiserver.log, a restart to kube-apiserver.2.log, ...
    String logName =
        apiServerStarts == 1 ? "kube-apiserver.log" : "kube-apiserver." + apiServerStarts + ".log";
    List<String> cmd =
        new ArrayList<>(
            List.of(
                binDir.resolve("kube-apiserver").toString(),
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                "--secure-port=" + securePort,
                "--cert-dir=" + workDir.resolve("apiserver-certs"),
                "--tls-cert-file=" + pki.servingCert(),
                "--tls-private-key-file=" + pki.servingKey(),
                "--client-ca-file=" + pki.caCert(),
                "--authorization-mode=RBAC",
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-account-key-file=" + pki.serviceAccountPublicKey(),
                "--service-account-signing-key-file=" + pki.serviceAccountKey(),
                "--service-cluster-ip-range=10.0.0.0/24",
                // no kubernetes Service endpoints: the loopback advertise address cannot back them,
                // and the reconciler would log "may not be in the loopback range" every 10 s
                "--endpoint-reconciler-type=none",
                "--disable-admission-plugins=ServiceAccount",
                "--allow-privileged=true",
                "--profiling=false",
                "--enable-priority-and-fairness=false",
                "--event-ttl=15m",
                "--v=1"));
    cmd.addAll(extra);
    apiServer = ManagedProcess.start("kube-apiserver", cmd, workDir.resolve(logName), childEnv());
    apiServerUrl = "https://127.0.0.1:" + securePort;
    SSLContext tls = SslContexts.of(pki.adminCert(), pki.adminKey(), pki.caCert());
    HttpClient http =
        HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(2)).build();
    awaitHttp200(apiServer, http, URI.create(apiServerUrl + "/readyz"));
    writeKubeconfig();
    awaitHttp200(apiServer, http, URI.create(apiServerUrl + "/api/v1/namespaces/default"));
  }

  private void writeKubeconfig() {
    String yaml =
        AdminKubeconfig.render(
            apiServerUrl, read(pki.caCert()), read(pki.adminCert()), read(pki.adminKey()));
    try {
      Path file = kubeconfig();
      Files.writeString(file, yaml);
      file.toFile().setReadable(false, false);
      file.toFile().setReadable(true, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write kubeconfig", e);
    }
  }

  private void awaitHttp200(ManagedProcess proc, HttpClient http, URI uri) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      if (!proc.isAlive()) {
        String tail = proc.tail(LOG_TAIL_LINES);
        String msg =
            proc.name()
                + " exited with code "
                + proc.exitCode()
                + " before "
                + uri
                + " answered; last lines of "
                + proc.logFile()
                + ":\n"
                + tail;
        if (tail.contains("address already in use")) {
          throw new PortInUseException(msg);
        }
        throw new IllegalStateException(msg);
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = "HTTP " + r.statusCode() + ": " + r.body().strip();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + uri, e);
      }
      sleep(250);
    }
    throw new IllegalStateException(
        proc.name()
            + " did not answer 200 on "
            + uri
            + " within "
            + START_TIMEOUT.toSeconds()
            + " s (last: "
            + last
            + "); last lines of "
            + proc.logFile()
            + ":\n"
            + proc.tail(LOG_TAIL_LINES));
  }

  /** The admin kubeconfig file ({@code workDir/kubeconfig}). */
  @Override
  public Path kubeconfig() {
    return workDir.resolve("kubeconfig");
  }

  /** The API server's base URL, e.g. {@code https://127.0.0.1:41235}. */
  public String apiServerUrl() {
    return apiServerUrl;
  }

  /** PEM of the CA that signed the API server's serving certificate and the admin certificate. */
  public String caCertificatePem() {
    return read(pki.caCert());
  }

  /**
   * The environment a pod of {@code serviceAccount} would give a process talking to this API server
   * with fabric8's in-cluster configuration, as the shipped Deployments run: {@code
   * KUBERNETES_SERVICE_HOST} and {@code KUBERNETES_SERVICE_PORT}, a token of the ServiceAccount
   * (TokenRequest, valid 2 h) and the API server's CA in files under {@code dir} (fabric8 reads
   * them from {@code KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN} and {@code KUBERNETES_CERTS_CA_FILE}
   * instead of {@code /var/run/secrets/kubernetes.io/serviceaccount}), and no kubeconfig ({@code
   * KUBERNETES_AUTH_TRYKUBECONFIG=false}; also leave {@code KUBECONFIG} unset). A process with it
   * runs with the ServiceAccount's RBAC, unlike one given {@link #kubeconfig()} (cluster-admin),
   * and does not parse a kubeconfig (which makes fabric8 load every model class it knows).
   *
   * @param namespace the ServiceAccount's namespace
   * @param serviceAccount an existing ServiceAccount there
   * @param dir where the token and CA files are written
   * @throws IllegalStateException if the token request fails
   */
  public Map<String, String> inClusterEnvironment(
      String namespace, String serviceAccount, Path dir) {
    String token =
        kubectl("create", "token", serviceAccount, "-n", namespace, "--duration=2h")
            .orThrow()
            .stdout()
            .strip();
    URI url = URI.create(apiServerUrl);
    try {
      Files.createDirectories(dir);
      Path tokenFile = Files.writeString(dir.resolve(serviceAccount + ".token"), token);
      Path caFile = Files.writeString(dir.resolve("ca.crt"), caCertificatePem());
      return Map.of(
          "KUBERNETES_SERVICE_HOST", url.getHost(),
          "KUBERNETES_SERVICE_PORT", String.valueOf(url.getPort()),
          "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", tokenFile.toString(),
          "KUBERNETES_CERTS_CA_FILE", caFile.toString(),
          "KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The directory given to {@link #start}, absolute. */
  public Path workDir() {
    return workDir;
  }

  /** The binary directory given to {@link #start}, absolute. */
  public Path binDir() {
    return binDir;
  }

  /** Wall time {@link #start} took, from checking the binaries to ready. */
  public Duration startupTime() {
    return startupTime;
  }

  @Override
  public String description() {
    return "local kube-apiserver " + apiServerUrl();
  }

  /** The API server runs on this machine: webhooks are reached on loopback. */
  @Override
  public String webhookHost() {
    return "127.0.0.1";
  }

  /** A free loopback port, picked on first call and then the same. */
  @Override
  public synchronized int webhookPort() {
    if (webhookPort == 0) {
      webhookPort = FreePorts.pick(1).get(0);
    }
    return webhookPort;
  }

  /** A fabric8 client configuration for the admin user. */
  public Config clientConfig() {
    try {
      return Config.fromKubeconfig(Files.readString(kubeconfig()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + kubeconfig(), e);
    }
  }

  /**
   * The admin client, created on first use and closed by {@link #close()}. Do not close it
   * yourself; use {@link #newClient()} for a client you own.
   */
  @Override
  public synchronized KubernetesClient client() {
    if (closed) {
      throw new IllegalStateException("control plane is closed");
    }
    if (client == null) {
      client = newClient();
    }
    return client;
  }

  /** A new admin client; the caller closes it. */
  @Override
  public KubernetesClient newClient() {
    return dev.ironcore.maintenance.api.json.JsonMappers.client(clientConfig());
  }

  /** kubectl bound to {@link #kubeconfig()} ({@code binDir/kubectl}, else /usr/bin/kubectl). */
  @Override
  public Kubectl kubectlTool() {
    return kubectl;
  }

  /** Runs {@code kubectl --kubeconfig <kubeconfig> args...}; never throws on a non-zero exit. */
  @Override
  public KubectlResult kubectl(String... args) {
    return kubectl.run(args);
  }

  /**
   * Whether etcd or kube-apiserver has ended on its own (crashed, killed, out of disk; a
   * kube-apiserver stopped by {@link #stopApiServer()} counts too).
   *
   * @return empty while both run (and after {@link #close()}), else which one ended, its exit code
   *     and the last 10 lines of its log, e.g. {@code etcd exited with code 137; last lines of
   *     WORK/etcd.log: ...}
   */
  public java.util.Optional<String> exitedProcess() {
    if (stopping) {
      return java.util.Optional.empty();
    }
    for (ManagedProcess p : java.util.Arrays.asList(etcd, apiServer)) {
      if (p != null && !p.isAlive()) {
        return java.util.Optional.of(
            p.name()
                + " exited with code "
                + p.exitCode()
                + "; last lines of "
                + p.logFile()
                + ":\n"
                + p.tail(10));
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * Stops the kube-apiserver (SIGTERM, SIGKILL after 10 s) and waits until it has exited; etcd and
   * its data stay. Clients get connection errors until {@link #startApiServer()}.
   */
  public synchronized void stopApiServer() {
    if (closed) {
      throw new IllegalStateException("control plane is closed");
    }
    apiServer.stop(STOP_GRACE);
  }

  /**
   * Starts the kube-apiserver again after {@link #stopApiServer()}: same port, flags, certificates
   * and etcd, so {@link #kubeconfig()} and running clients stay valid. Its watch cache starts empty
   * at etcd's current revision. Returns once {@code /readyz} answers 200; its log is {@code
   * kube-apiserver.N.log} for the N-th start.
   *
   * @throws IllegalStateException if it is still running, or does not become ready within {@link
   *     #START_TIMEOUT} (e.g. the port was taken meanwhile)
   */
  public synchronized void startApiServer() {
    if (closed) {
      throw new IllegalStateException("control plane is closed");
    }
    if (apiServer.isAlive()) {
      throw new IllegalStateException("kube-apiserver is running; stop it first");
    }
    startApiServer(etcdPort, apiServerPort, extraApiServerArgs);
    LOG.info("kube-apiserver at {} started again (start {})", apiServerUrl, apiServerStarts);
  }

  /**
   * The process ids of the running etcd and kube-apiserver, keyed {@code "etcd"} and {@code
   * "kube-apiserver"} (a restarted API server has a new one).
   */
  public synchronized java.util.Map<String, Long> pids() {
    return java.util.Map.of("etcd", etcd.pid(), "kube-apiserver", apiServer.pid());
  }

  /** {@link #stopApiServer()} then {@link #startApiServer()}. */
  public synchronized void restartApiServer() {
    stopApiServer();
    startApiServer();
  }

  /** etcd's client URL, e.g. {@code http://127.0.0.1:41234} (plain HTTP, no authentication). */
  public String etcdUrl() {
    return "http://127.0.0.1:" + etcdPort;
  }

  /**
   * Compacts etcd's key-value history up to its current revision (physically), through etcd's gRPC
   * gateway ({@code POST /v3/kv/range} for the revision, then {@code /v3/kv/compaction}). A watch
   * or list from an older resourceVersion that the API server cannot serve from its watch cache
   * then fails with 410 Gone ("too old resource version" / "required revision has been compacted").
   * The API server compacts too (every 5 min); a revision it already compacted counts as done.
   *
   * @return the revision compacted to
   * @throws IllegalStateException if etcd does not answer or refuses for another reason
   */
  public long compactEtcd() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    // any key answers with the store's current revision in its header
    String range = etcdPost(http, "/v3/kv/range", "{\"key\":\"AA==\"}");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"revision\":\"(\\d+)\"").matcher(range);
    if (!m.find()) {
      throw new IllegalStateException("no revision in etcd's range answer: " + range);
    }
    long revision = Long.parseLong(m.group(1));
    String answer =
        etcdPost(
            http, "/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
    if (answer.contains("\"error\"") && !answer.contains("compacted")) {
      throw new IllegalStateException("etcd refused to compact to " + revision + ": " + answer);
    }
    LOG.info("etcd compacted to revision {}", revision);
    return revision;
  }

  private String etcdPost(HttpClient http, String path, String body) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(etcdUrl() + path))
                  .timeout(Duration.ofSeconds(10))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.body();
    } catch (IOException e) {
      throw new IllegalStateException("etcd at " + etcdUrl() + " did not answer " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while calling etcd", e);
    }
  }

  /** Stops both processes, closes the client and deletes the etcd data. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopping = true;
    if (client != null) {
      client.close();
      client = null;
    }
    stopProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook is running or has run
    }
    deleteRecursively(workDir.resolve("etcd"));
  }

  private void stopOnJvmExit() {
    stopping = true;
    stopProcesses();
    deleteRecursively(workDir.resolve("etcd"));
  }

  private void stopProcesses() {
    if (apiServer != null) {
      apiServer.stop(STOP_GRACE);
    }
    if (etcd != null) {
      etcd.stop(STOP_GRACE);
    }
  }

  private static Map<String, String> childEnv() {
    String noProxy =
        System.getenv().getOrDefault("NO_PROXY", System.getenv().getOrDefault("no_proxy", ""));
    String extended = (noProxy.isBlank() ? "" : noProxy + ",") + "127.0.0.1,localhost";
    return Map.of("NO_PROXY", extended, "no_proxy", extended);
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + p, e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Deletes {@code dir} and everything below; files that vanish meanwhile (another hook) are fine.
   */
  static void deleteRecursively(Path dir) {
    for (int attempt = 1; Files.exists(dir); attempt++) {
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | UncheckedIOException e) {
        if (attempt >= 5) {
          throw new UncheckedIOException(
              "cannot delete " + dir,
              e instanceof IOException io ? io : ((UncheckedIOException) e).getCause());
        }
      }
    }
  }

  /** A child process exited because its port was taken between picking and binding. */
  private static final class PortInUseException extends RuntimeException {
    PortInUseException(String message) {
      super(message);
    }
  }
}

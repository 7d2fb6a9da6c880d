package dev.ironcore.maintenance.server.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.server.testing.TempDirs;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import dev.ironcore.maintenance.server.warning.BoundMachines;
import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import dev.ironcore.maintenance.testkit.WebhookInstaller;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One webhook server per test JVM (fresh CA, the cluster's reserved port, 127.0.0.1) installed into
 * the shared {@link TestCluster} (local control plane, or k3s with {@code -Dtest.cluster=k3s}) with
 * {@code manifests/local}. Started on first {@link #get()}, after which the API server provably
 * calls our webhooks.
 */
final class WebhookEnvironment {
  /** kubectl resource names: kind Machine exists in two groups, so tests always name the group. */
  static final String CAPI = "machines.cluster.x-k8s.io";

  static final String IRONCORE = "machines.compute.ironcore.dev";
  static final String POOLS = "machinepools.compute.ironcore.dev";
  static final String VALIDATING = "validatingwebhookconfigurations.admissionregistration.k8s.io";

  /** A user finalizer the tests hold objects with. */
  static final String HOLD = "e2e.ironcore.dev/hold";

  static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();
  private static WebhookEnvironment instance;

  final TestCluster cp;
  final WebhookServer server;

  /**
   * What the server's MachinePool webhook counts bound Machines from; {@link BoundMachines#NONE}
   * (no warnings) unless a test swaps in a cache, as a restarted server would get.
   */
  static final AtomicReference<BoundMachines> MACHINES = new AtomicReference<>(BoundMachines.NONE);

  private WebhookEnvironment(TestCluster cp, WebhookServer server) {
    this.cp = cp;
    this.server = server;
  }

  static synchronized WebhookEnvironment get() {
    if (instance == null) {
      instance = start();
    }
    return instance;
  }

  private static WebhookEnvironment start() {
    TestCluster cp = TestClusters.shared();
    Path dir = TempDirs.create("webhook-e2e-certs");
    TestCertificates certs = TestCertificates.create(dir);
    WebhookServer server =
        new WebhookServer(
            WebhookServerConfig.of(certs.certFile(), certs.keyFile()).withBindAddress("127.0.0.1"),
            BoundMachines.delegatingTo(MACHINES::get));
    int port = server.start(cp.webhookPort());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.stop();
                  TempDirs.delete(dir);
                },
                "webhook-e2e-stop"));
    WebhookInstaller.install(
        cp,
        ManifestPaths.overlay("local"),
        "https://" + cp.webhookHost() + ":" + port,
        certs.ca().certificatePem());
    WebhookEnvironment env = new WebhookEnvironment(cp, server);
    env.awaitWebhooksActive();
    return env;
  }

  /** The API server picks up webhook configurations asynchronously; wait until it calls us. */
  private void awaitWebhooksActive() {
    String ns = newNamespace();
    String probe =
        """
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: Machine
                metadata:
                  name: probe
                  namespace: %s
                spec:
                  clusterName: c
                """
            .formatted(ns);
    await("webhooks active")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              KubectlResult r =
                  cp.kubectlTool()
                      .runWithInput(probe, "apply", "--dry-run=server", "-o", "json", "-f", "-");
              return r.ok()
                  && r.stdout().contains(dev.ironcore.maintenance.api.Names.CLEANUP_FINALIZER);
            });
  }

  /** Creates a namespace with a unique name and returns the name. */
  String newNamespace() {
    String ns = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
    kubectl("create", "namespace", ns);
    return ns;
  }

  /** Runs kubectl and fails with its stderr when it exits non-zero. */
  KubectlResult kubectl(String... args) {
    return cp.kubectl(args).orThrow();
  }

  /**
   * {@code kubectl apply -f -} (client-side) with {@code yaml} on stdin; never throws on failure.
   */
  KubectlResult apply(String yaml, String... extraArgs) {
    String[] args = new String[extraArgs.length + 3];
    args[0] = "apply";
    System.arraycopy(extraArgs, 0, args, 1, extraArgs.length);
    args[extraArgs.length + 1] = "-f";
    args[extraArgs.length + 2] = "-";
    return cp.kubectlTool().runWithInput(yaml, args);
  }

  /** {@code kubectl get <resource> -n ns name -o json}, parsed. */
  JsonNode get(String resource, String namespace, String name) {
    return json(kubectl("get", resource, "-n", namespace, name, "-o", "json").stdout());
  }

  /** True when {@code kubectl get} says NotFound. */
  boolean isGone(String resource, String namespace, String name) {
    KubectlResult r = cp.kubectl("get", resource, "-n", namespace, name, "-o", "name");
    return !r.ok() && r.stderr().contains("NotFound");
  }

  static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + text, e);
    }
  }
}

package dev.ironcore.maintenance.bench;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The cluster our webhook server reads, as an installed server does: a local kube-apiserver
 * (testkit {@link LocalControlPlane}) with our CRDs and one MachinePool, {@value #POOL}, with
 * {@code boundMachines} Machines bound to it (the 4.6 KB spec of the benchmark's IronCore Machine
 * review; none tolerates a {@code NoExecute} taint), and the shipped namespaces and RBAC. The
 * server gets the environment of the webhook's pod ({@link #podEnvironment}: fabric8's in-cluster
 * configuration with a token of the shipped {@code ironcore-maintenance-webhook} ServiceAccount, no
 * kubeconfig), so it runs its eviction warnings as installed (fabric8 client, discovery, a LIST by
 * field selector {@code spec.machinePoolRef.name} per MachinePool write that adds a {@code
 * NoExecute} taint); the benchmark's MachinePool review ({@code
 * reviews/machinepool-taint-update.json}) is such a write. Without a cluster the server would skip
 * all of that and measure lighter than an installed pod; with a kubeconfig (as {@code make run}
 * gives it) heavier: parsing one makes fabric8 load every model class its jars list (about 5 MiB
 * more, bench/analysis.md).
 */
final class WebhookCluster implements AutoCloseable {
  static final String POOL = "bench-pool";
  static final String NS = "bench";
  static final String REVIEW = "/reviews/machinepool-taint-update.json";

  private final LocalControlPlane cp;
  private final int boundMachines;

  private WebhookCluster(LocalControlPlane cp, int boundMachines) {
    this.cp = cp;
    this.boundMachines = boundMachines;
  }

  /**
   * Starts the API server and etcd from {@code binDir} under {@code work}, installs {@code
   * manifests/crds} (with a conversion server in this JVM, run from the repository's root) and
   * creates the pool and its Machines.
   */
  static WebhookCluster start(Path binDir, Path work, int boundMachines) throws Exception {
    LocalControlPlane cp = LocalControlPlane.start(binDir, work.resolve("controlplane"));
    try {
      CrdsWithConversion.install(cp, "crds");
      cp.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=120s");
      for (String overlay : List.of("namespaces", "rbac")) {
        cp.kubectl("apply", "-k", ManifestPaths.overlay(overlay).toString()).orThrow();
      }
      WebhookCluster cluster = new WebhookCluster(cp, boundMachines);
      cluster.populate();
      return cluster;
    } catch (Exception | Error e) {
      cp.close();
      throw e;
    }
  }

  Path kubeconfig() {
    return cp.kubeconfig();
  }

  /**
   * The webhook pod's environment for this API server ({@link
   * LocalControlPlane#inClusterEnvironment}: in-cluster configuration, a token of the shipped
   * webhook ServiceAccount written under {@code dir}); {@code KUBECONFIG} must stay unset.
   */
  Map<String, String> podEnvironment(Path dir) {
    return cp.inClusterEnvironment(
        "ironcore-maintenance-system", "ironcore-maintenance-webhook", dir);
  }

  int boundMachines() {
    return boundMachines;
  }

  private void populate() throws Exception {
    String spec;
    try (InputStream in =
        WebhookCluster.class.getResourceAsStream("/reviews/ironcore-machine-create.json")) {
      var review = dev.ironcore.maintenance.api.json.JsonMappers.shared().readTree(in);
      spec = review.get("request").get("object").get("spec").toString();
    }
    try (KubernetesClient client = cp.newClient()) {
      client
          .resource(
              "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                  + NS
                  + "\"}}")
          .create();
      client
          .resource(
              "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"MachinePool\","
                  + "\"metadata\":{\"name\":\""
                  + POOL
                  + "\"}}")
          .create();
      String machineSpec =
          spec.replace(
              "\"machinePoolRef\":{\"name\":\"pool-zone-a-042\"}",
              "\"machinePoolRef\":{\"name\":\"" + POOL + "\"}");
      if (machineSpec.equals(spec)) {
        throw new IllegalStateException("the Machine review no longer names pool-zone-a-042");
      }
      ExecutorService writers = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < boundMachines; i++) {
          String name = String.format("vm-%05d", i);
          done.add(
              writers.submit(
                  () ->
                      client
                          .resource(
                              "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"Machine\","
                                  + "\"metadata\":{\"name\":\""
                                  + name
                                  + "\",\"namespace\":\""
                                  + NS
                                  + "\",\"finalizers\":[\""
                                  + Names.POOLLET_FINALIZER
                                  + "\"]},\"spec\":"
                                  + machineSpec
                                  + "}")
                          .create()));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        writers.shutdownNow();
      }
    }
  }

  /**
   * Sends the MachinePool review once to {@code url} (trusting {@code caCrt}) and returns the
   * AdmissionReview's response body; the caller checks that it carries the eviction warning, i.e.
   * that the server really read the pool's Machines from this cluster.
   */
  static String reviewOnce(String url, Path caCrt) throws Exception {
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(dev.ironcore.maintenance.certs.SslContexts.trusting(caCrt))
            .build();
    byte[] body;
    try (InputStream in = WebhookCluster.class.getResourceAsStream(REVIEW)) {
      body = in.readAllBytes();
    }
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("MachinePool review: HTTP " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  @Override
  public void close() {
    cp.close();
  }
}

package dev.ironcore.maintenance.image;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The webhook server's training run ({@link AotTraining}): the server as its Deployment starts it
 * ({@link ShippedWebhook}) with {@code -XX:AOTCacheOutput=<cache>} and without the shipped cache,
 * answering over HTTP/2 what an API server sends it: three rounds of 500 CAPI Machine mutations,
 * 300 IronCore Machine mutations and validations, 40 MachinePool writes that add a {@code
 * NoExecute} taint (mutation and validation), 200 ConversionReviews, and its metrics and probes;
 * then SIGTERM.
 *
 * <p>With a cluster ({@code podEnv} non-empty: the webhook pod's environment, {@link
 * dev.ironcore.maintenance.testkit.LocalControlPlane#inClusterEnvironment}) the MachinePool writes
 * name the fleet's {@code pool-a} and are answered with an eviction warning from the pool's
 * Machines listed on the API server; the rounds start only once one is (the eviction warnings start
 * after the server is ready), so that fabric8's client, discovery and listing are in the cache:
 * about 0.3 s less CPU in the seconds after ready than a cache trained without a cluster (one-off
 * starts, 2026-12-06, bench/analysis.md).
 */
final class WebhookAotTraining {
  private WebhookAotTraining() {}

  /**
   * @param jvm the build's {@code image/target/jvm}
   * @param work the server's certificates and log
   * @param training {@code image/src/aot-training} ({@code machine-conversion.json})
   * @param reviews the benchmark's reviews ({@code capi-machine-create.json}, {@code
   *     ironcore-machine-create.json}, {@code machinepool-taint-update.json})
   * @param podEnv the pod's environment, or empty for no cluster
   * @param cache the AOT cache to write (replaced)
   * @throws IllegalStateException when the server does not start, answers a review with other than
   *     200, gives no eviction warning within 60 s with a cluster, or writes no cache
   */
  static void train(
      Path jvm, Path work, Path training, Path reviews, Map<String, String> podEnv, Path cache)
      throws Exception {
    String capiMachine = Files.readString(reviews.resolve("capi-machine-create.json"));
    String machine = Files.readString(reviews.resolve("ironcore-machine-create.json"));
    String pool = AotTraining.fleetPoolReview(reviews);
    String conversion = Files.readString(training.resolve("machine-conversion.json"));
    String flags =
        ShippedContainer.of("webhook_deployment.yaml", jvm)
                .javaToolOptions()
                .replaceAll("-XX:AOTCache=\\S+", "")
            + " -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput="
            + cache;
    Files.deleteIfExists(cache);
    Map<String, String> env =
        podEnv.isEmpty()
            // no cluster: not the user's kubeconfig either
            ? Map.of("KUBERNETES_AUTH_TRYKUBECONFIG", "false")
            : podEnv;
    try (ShippedWebhook webhook = ShippedWebhook.start(jvm, work, flags, env)) {
      if (!podEnv.isEmpty()) {
        awaitEvictionWarning(webhook, pool);
      }
      for (int round = 0; round < 3; round++) {
        send(webhook, "/mutate/capi-machine", capiMachine, 500);
        send(webhook, "/mutate/machine", machine, 300);
        send(webhook, "/validate/machine", machine, 300);
        send(webhook, "/mutate/machinepool", pool, 20);
        send(webhook, "/validate/machinepool", pool, 20);
        send(webhook, "/convert", conversion, 200);
        for (var uri :
            new java.net.URI[] {
              webhook.metrics().resolve("/metrics"),
              webhook.probes().resolve("/healthz"),
              webhook.probes().resolve("/readyz")
            }) {
          ok(webhook, uri.toString(), webhook.get(uri));
        }
      }
      int exit = webhook.stop(60);
      if (exit != 0) {
        throw new IllegalStateException(
            "the training server exited with " + exit + "; see " + work.resolve("server.log"));
      }
    }
    if (!Files.isRegularFile(cache) || Files.size(cache) == 0) {
      throw new IllegalStateException(
          "no webhook AOT cache written; see " + work.resolve("server.log"));
    }
  }

  private static void awaitEvictionWarning(ShippedWebhook webhook, String pool) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      HttpResponse<String> answer = webhook.post("/validate/machinepool", pool).get();
      ok(webhook, "/validate/machinepool", answer);
      if (answer.body().contains("\"warnings\"")) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "no eviction warning from the training cluster within 60 s:\n" + webhook.log());
  }

  private static void send(ShippedWebhook webhook, String path, String review, int n)
      throws Exception {
    for (int i = 0; i < n; i++) {
      ok(webhook, path, webhook.post(path, review).get());
    }
  }

  private static void ok(ShippedWebhook webhook, String what, HttpResponse<String> answer) {
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(
          what + " answered " + answer.statusCode() + ": " + answer.body() + "\n" + webhook.log());
    }
  }
}

package dev.ironcore.maintenance.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both processes on the image's own Java (image/target/jvm, what {@code hack/java-runtime.sh} puts
 * at /opt/java and /app/jvm), started exactly as the shipped Deployments start them, with the
 * image's paths mapped to the build's: the webhook server with its {@code JAVA_TOOL_OPTIONS} and
 * {@code -XX:AOTMode=on} (the JVM refuses to start when the AOT cache does not fit the runtime, the
 * classpath or the flags) serves a real AdmissionReview over TLS; the controller starts with its
 * Deployment's flags, its own AOT cache and {@code -XX:AOTMode=on} too, and serves its probes and
 * metrics (every module its jars use is in the runtime; the fleet benchmark runs it at scale on
 * this runtime).
 */
class ImageRuntimeTest {
  private static final Path JVM = Path.of("target", "jvm").toAbsolutePath();

  /**
   * The shipped webhook server, {@code javaOptions} added to its JAVA_TOOL_OPTIONS and {@code
   * -XX:AOTMode=on}.
   */
  private static ShippedWebhook startWebhook(Path tmp, String javaOptions, Map<String, String> env)
      throws Exception {
    ShippedContainer c = ShippedContainer.of("webhook_deployment.yaml", JVM);
    assertThat(c.javaToolOptions()).contains("-XX:AOTCache=" + JVM.resolve("app/webhook.aot"));
    return ShippedWebhook.start(
        JVM, tmp, c.javaToolOptions() + " -XX:AOTMode=on " + javaOptions, env);
  }

  private static ShippedWebhook startWebhook(Path tmp) throws Exception {
    return startWebhook(tmp, "", Map.of());
  }

  @Test
  void theWebhookServerStartsOnTheImagesJavaWithItsAotCacheAndAnswersAReview(@TempDir Path tmp)
      throws Exception {
    try (ShippedWebhook webhook = startWebhook(tmp)) {
      String review =
          Files.readString(
              Path.of("..", "bench", "src", "main", "resources", "reviews")
                  .resolve("capi-machine-create.json"));
      HttpResponse<String> answer = webhook.post("/mutate/capi-machine", review).get();
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body())
          .contains("\"allowed\":true")
          .contains("\"patchType\":\"JSONPatch\"");
      // the Deployment's probes go to their own plain-HTTP port
      assertThat(webhook.probes()).as("--health-probe-bind-address in the Deployment").isNotNull();
      for (String probe : List.of("/healthz", "/readyz")) {
        assertThat(
                HttpClient.newHttpClient()
                    .send(
                        HttpRequest.newBuilder(webhook.probes().resolve(probe)).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .statusCode())
            .as(probe)
            .isEqualTo(200);
      }
      // and Prometheus to the metrics port, plain HTTP
      assertThat(webhook.metrics()).as("--metrics-bind-address in the Deployment").isNotNull();
      HttpResponse<String> scrape =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(webhook.metrics().resolve("/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.body()).contains("ironcore_maintenance_webhook_requests_total{");
      // TLS on Conscrypt: its native library loads on the image's runtime, without the JDK's
      // restricted-method warning
      assertThat(webhook.log())
          .contains("TLS Conscrypt 2.")
          .doesNotContain("WARNING: java.lang.System::load");
    }
  }

  /**
   * The eviction warnings as installed: the webhook server on the image's Java and class path, in a
   * pod's environment (fabric8's in-cluster configuration with a token of the shipped {@code
   * ironcore-maintenance-webhook} ServiceAccount, so with the shipped RBAC), discovers the API and
   * lists a pool's Machines from a real API server for a write that adds a {@code NoExecute} taint.
   */
  @Test
  void theWebhookServerAsInstalledWarnsOfEvictionsFromARealApiServer(@TempDir Path tmp)
      throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), tmp.resolve("cluster"))) {
      AotTraining.install(
          cp, tmp, Path.of("src", "aot-training", "controller-fleet.yaml").toAbsolutePath());
      Map<String, String> pod =
          cp.inClusterEnvironment(
              "ironcore-maintenance-system", "ironcore-maintenance-webhook", tmp.resolve("sa"));
      try (ShippedWebhook webhook = startWebhook(tmp, "", pod)) {
        String review =
            AotTraining.fleetPoolReview(
                Path.of("..", "bench", "src", "main", "resources", "reviews"));
        // the client starts after the server is ready: no warning until it has discovered the API
        HttpResponse<String> answer = webhook.post("/validate/machinepool", review).get();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!answer.body().contains("warnings") && System.nanoTime() < deadline) {
          Thread.sleep(200);
          answer = webhook.post("/validate/machinepool", review).get();
        }
        assertThat(answer.statusCode()).as(webhook.log()).isEqualTo(200);
        assertThat(answer.body())
            .as(webhook.log())
            .contains("\"allowed\":true")
            .contains("1 bound Machine does not tolerate bench.ironcore.dev/maintenance:NoExecute");
        assertThat(webhook.log())
            .contains("eviction warnings on")
            .doesNotContain("\"level\":\"ERROR\"");
      }
    }
  }

  /**
   * Nothing slow on the way to ready: no class of a signed jar (BouncyCastle's: the JVM verifies
   * the whole jar's signature before it defines the first one, and an AOT cache cannot hold them;
   * linking {@code Pem} once loaded one, about 0.18 s of every start) and no P-256 signature by the
   * JDK's EC code (the key check signs with Conscrypt; the JDK's first signature, interpreted,
   * built its tables for 0.07-0.2 s). Together they took ready from 1.15-1.44 s to 0.55-0.59 s in
   * one-off starts. And every picocli class comes from the AOT cache (third-party/picocli compiles
   * picocli's sources for Java 17; its own Java 5 jar's classes are never cached: 0.1-0.15 s).
   */
  @Test
  void theWebhookServerStartsWithoutSignedJarsOrTheJdksEcSignatures(@TempDir Path tmp)
      throws Exception {
    Path classLog = tmp.resolve("classes.log");
    try (ShippedWebhook webhook =
        startWebhook(tmp, "-Xlog:class+load=info,class+init=info:file=" + classLog, Map.of())) {
      assertThat(webhook.post("/mutate/capi-machine", "{}").get().statusCode()).isEqualTo(200);
    }
    String classes = Files.readString(classLog);
    assertThat(classes).contains("dev.ironcore.maintenance.certs.KeyMatch");
    assertThat(classes)
        .as("classes loaded before and while the server served")
        .doesNotContain("org.bouncycastle")
        .doesNotContain("Initializing 'sun/security/ec/ECOperations$Secp256R1Generator");
    List<String> picocli =
        classes.lines().filter(l -> l.contains("[class,load] picocli.")).toList();
    assertThat(picocli).as("picocli's classes loaded").hasSizeGreaterThan(50);
    assertThat(picocli)
        .as("picocli's classes, each from the AOT cache")
        .allMatch(l -> l.endsWith("source: shared objects file"));
  }

  /**
   * Eight AdmissionReviews of 6.9 MB (a CAPI Machine with one large annotation, near the 7 MiB body
   * limit) at once over HTTP/2, on the shipped 64 MiB heap: each takes about five times its size in
   * heap while answered, so two at once ended the server with OutOfMemoryError (its Deployment
   * exits on it) before the request-body budget; now they wait for room and all are answered.
   */
  @Test
  void theShippedHeapAnswersEightOfTheLargestReviewsAtOnce(@TempDir Path tmp) throws Exception {
    String review =
        Files.readString(
            Path.of("..", "bench", "src", "main", "resources", "reviews")
                .resolve("capi-machine-create.json"));
    String large =
        review.replaceFirst(
            "\"metadata\"\\s*:\\s*\\{",
            "\"metadata\": {\"annotations\": {\"large\": \"" + "a".repeat(6_900_000) + "\"},");
    assertThat(large.length()).isBetween(6_900_000, 7 * 1024 * 1024);
    try (ShippedWebhook webhook = startWebhook(tmp)) {
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(webhook.post("/mutate/capi-machine", large));
      }
      for (CompletableFuture<HttpResponse<String>> answer : answers) {
        HttpResponse<String> got = answer.get(60, TimeUnit.SECONDS);
        assertThat(got.statusCode()).as(webhook.log()).isEqualTo(200);
        assertThat(got.body()).contains("\"allowed\":true").contains("\"patchType\":\"JSONPatch\"");
      }
      assertThat(webhook.server().isAlive()).isTrue();
      assertThat(webhook.log()).doesNotContain("OutOfMemoryError: Java heap space");
    }
  }

  /**
   * Reviews of many small values on the shipped 64 MiB heap: a tree takes about 80 bytes of heap
   * per JSON token, so one CAPI Machine review with 250,000 small annotations (3.4 MB, within the
   * body limit) ended the server with OutOfMemoryError, as did ten of 50,000 (643 KB) at once. Now
   * the first is refused with 413 and of the ten each is answered or refused with 503; the server
   * stays up and answers one of them alone and an ordinary review afterwards.
   */
  @Test
  void theShippedHeapRefusesReviewsOfTooManySmallValuesAndStaysUp(@TempDir Path tmp)
      throws Exception {
    String review =
        Files.readString(
            Path.of("..", "bench", "src", "main", "resources", "reviews")
                .resolve("capi-machine-create.json"));
    try (ShippedWebhook webhook = startWebhook(tmp)) {
      HttpResponse<String> refused =
          webhook.post("/mutate/capi-machine", dense(review, 250_000)).get(60, TimeUnit.SECONDS);
      assertThat(refused.statusCode()).as(webhook.log()).isEqualTo(413);
      assertThat(refused.body()).contains("too many JSON values");
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      String tenth = dense(review, 50_000);
      for (int i = 0; i < 10; i++) {
        answers.add(webhook.post("/mutate/capi-machine", tenth));
      }
      int answered = 0;
      for (CompletableFuture<HttpResponse<String>> answer : answers) {
        HttpResponse<String> got = answer.get(60, TimeUnit.SECONDS);
        assertThat(got.statusCode()).as(webhook.log()).isIn(200, 503);
        answered += got.statusCode() == 200 ? 1 : 0;
      }
      // their trees' reservations grow while read; the oldest waits for the others, so they cannot
      // crowd each other out until all ten get 503 (seen once in a fresh-clone run before)
      assertThat(answered).as("answered of ten at once").isPositive();
      HttpResponse<String> alone =
          webhook.post("/mutate/capi-machine", tenth).get(60, TimeUnit.SECONDS);
      assertThat(alone.statusCode()).as(webhook.log()).isEqualTo(200);
      HttpResponse<String> ordinary = webhook.post("/mutate/capi-machine", review).get();
      assertThat(ordinary.statusCode()).isEqualTo(200);
      assertThat(webhook.server().isAlive()).isTrue();
      assertThat(webhook.log()).doesNotContain("OutOfMemoryError: Java heap space");
    }
  }

  /** {@code review} with {@code n} annotations {@code "aI":"v"} added to its object's. */
  private static String dense(String review, int n) {
    StringBuilder annotations = new StringBuilder("\"annotations\":{");
    for (int i = 0; i < n; i++) {
      annotations.append("\"a").append(i).append("\":\"v\",");
    }
    String dense = review.replaceFirst("\"annotations\":\\{", annotations.toString());
    assertThat(dense).hasSizeGreaterThan(review.length() + 11 * n);
    return dense;
  }

  /**
   * A ConversionReview of 6.9 MB (1,700 Machines, as the API server sends for a LIST in the other
   * version) on the shipped 64 MiB heap: held as one tree it took about ten times its size and
   * ended the server with OutOfMemoryError on its own; converted one object at a time it is
   * answered, every object in the desired version.
   */
  @Test
  void theShippedHeapConvertsAListOfSixPointNineMegabytes(@TempDir Path tmp) throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        dev.ironcore.maintenance.api.json.JsonMappers.shared();
    com.fasterxml.jackson.databind.node.ObjectNode review =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            json.readTree(
                Files.readAllBytes(Path.of("src", "aot-training", "machine-conversion.json")));
    com.fasterxml.jackson.databind.node.ArrayNode objects =
        (com.fasterxml.jackson.databind.node.ArrayNode) review.at("/request/objects");
    List<com.fasterxml.jackson.databind.JsonNode> sample = new ArrayList<>();
    objects.forEach(sample::add);
    for (int i = objects.size(); i < 1_700; i++) {
      com.fasterxml.jackson.databind.node.ObjectNode copy =
          (com.fasterxml.jackson.databind.node.ObjectNode) sample.get(i % sample.size()).deepCopy();
      ((com.fasterxml.jackson.databind.node.ObjectNode) copy.get("metadata"))
          .put("name", "machine-" + i);
      objects.add(copy);
    }
    String body = json.writeValueAsString(review);
    assertThat(body.length()).isBetween(6_000_000, 7 * 1024 * 1024);
    try (ShippedWebhook webhook = startWebhook(tmp)) {
      HttpResponse<String> got = webhook.post("/convert", body).get(60, TimeUnit.SECONDS);
      assertThat(got.statusCode()).as(webhook.log()).isEqualTo(200);
      com.fasterxml.jackson.databind.JsonNode response = json.readTree(got.body()).get("response");
      assertThat(response.at("/result/status").asText()).isEqualTo("Success");
      assertThat(response.get("convertedObjects")).hasSize(1_700);
      response
          .get("convertedObjects")
          .forEach(
              o ->
                  assertThat(o.get("apiVersion").asText())
                      .isEqualTo(review.at("/request/desiredAPIVersion").asText()));
      assertThat(webhook.server().isAlive()).isTrue();
    }
  }

  @Test
  void theControllerStartsOnTheImagesJavaWithItsDeploymentAndAotCacheAndServesItsProbes(
      @TempDir Path tmp) throws Exception {
    ShippedContainer c = ShippedContainer.of("controller_deployment.yaml", JVM);
    assertThat(c.javaToolOptions()).contains("-XX:AOTCache=" + JVM.resolve("app/controller.aot"));
    List<Integer> ports = FreePorts.pick(3);
    // an API server that does not answer: the probe and metrics listeners start before any call
    Files.writeString(
        tmp.resolve("kubeconfig"),
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:"
                + ports.get(2)
                + "',"
                + " insecure-skip-tls-verify: true}}]",
            "users: [{name: u, user: {token: t}}]",
            "contexts: [{name: x, context: {cluster: c, user: u}}]",
            "current-context: x",
            ""));
    List<String> cmd =
        c.commandWith(
            Map.of(
                "--health-probe-bind-address", "127.0.0.1:" + ports.get(0),
                "--metrics-bind-address", "127.0.0.1:" + ports.get(1)),
            Set.of("--leader-elect")); // no Lease to win without an API server
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(tmp.resolve("controller.log").toFile());
    pb.environment().put("JAVA_TOOL_OPTIONS", c.javaToolOptions() + " -XX:AOTMode=on");
    pb.environment().put("KUBECONFIG", tmp.resolve("kubeconfig").toString());
    Process controller = pb.start();
    try {
      HttpClient client = HttpClient.newHttpClient();
      Integer healthz = null;
      String metrics = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline && controller.isAlive() && metrics == null) {
        try {
          healthz = get(client, ports.get(0), "/healthz").statusCode();
          metrics = get(client, ports.get(1), "/metrics").body();
        } catch (java.io.IOException notYet) {
          Thread.sleep(50);
        }
      }
      String out = Files.readString(tmp.resolve("controller.log"));
      assertThat(controller.isAlive()).as(out).isTrue();
      assertThat(healthz).as(out).isEqualTo(200);
      assertThat(metrics).as(out).contains("jvm_memory_used_bytes");
      assertThat(out)
          .doesNotContain("NoClassDefFoundError")
          .doesNotContain("ClassNotFoundException");
    } finally {
      controller.destroy();
      controller.waitFor(10, TimeUnit.SECONDS);
      controller.destroyForcibly();
    }
  }

  private static HttpResponse<String> get(HttpClient client, int port, String path)
      throws java.io.IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

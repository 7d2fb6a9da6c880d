package dev.ironcore.maintenance.image;

import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The controller's training run ({@link AotTraining}): the controller as its Deployment starts it,
 * on the image's runtime, with {@code -XX:AOTCacheOutput}, against the training cluster ({@link
 * AotTraining#install}: the CRDs, a small fleet of pools, Leases, CAPI Machines with a nodeRef and
 * bound Machines), until its caches are synced and its loops ran; then stopped with SIGTERM, when
 * the JVM writes the cache. The classes loaded and linked on the way (fabric8's client and
 * informers, Jackson's deserializers of every cached kind, the loops) are what the cache holds; the
 * shipped controller then starts from it.
 */
final class ControllerAotTraining {
  private ControllerAotTraining() {}

  /**
   * @param work the controller's log
   * @param cache the AOT cache to write (replaced)
   * @throws IllegalStateException when the controller is not ready within 90 s, does not stop
   *     within 60 s of SIGTERM or writes no cache (the message names the log)
   */
  static void train(LocalControlPlane cp, ShippedContainer c, Path work, Path cache)
      throws Exception {
    Files.createDirectories(work);
    List<Integer> ports = FreePorts.pick(1);
    List<String> cmd =
        c.commandWith(
            Map.of(
                "--health-probe-bind-address",
                "127.0.0.1:" + ports.get(0),
                "--metrics-bind-address",
                "0"),
            Set.of());
    String flags =
        c.javaToolOptions().replaceAll("-XX:AOTCache=\\S+", "")
            + " -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput="
            + cache;
    Files.deleteIfExists(cache);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(work.resolve("controller.log").toFile());
    pb.environment().put("JAVA_TOOL_OPTIONS", flags);
    pb.environment().put("MALLOC_ARENA_MAX", c.env("MALLOC_ARENA_MAX"));
    // as in its pod: fabric8's in-cluster configuration with the ServiceAccount's token, no
    // kubeconfig (parsing one makes fabric8 load every model class it knows, bench/analysis.md)
    pb.environment().remove("KUBECONFIG");
    pb.environment()
        .putAll(
            cp.inClusterEnvironment(
                "ironcore-maintenance-system",
                "ironcore-maintenance-controller",
                work.resolve("serviceaccount")));
    pb.environment().put("POD_NAMESPACE", "ironcore-maintenance-system");
    pb.environment().put("POD_NAME", "aot-training");
    Process controller = pb.start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      URI readyz = URI.create("http://127.0.0.1:" + ports.get(0) + "/readyz");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      boolean ready = false;
      while (!ready && System.nanoTime() < deadline && controller.isAlive()) {
        try {
          ready =
              http.send(
                          HttpRequest.newBuilder(readyz).build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
        } catch (IOException notYet) {
          // not listening yet
        }
        Thread.sleep(100);
      }
      if (!ready) {
        throw new IllegalStateException(
            "the controller did not become ready; see " + work.resolve("controller.log"));
      }
      Thread.sleep(3000); // the loops' first passes (drain, health, orphans)
      controller.destroy(); // SIGTERM: the JVM writes the cache as it exits
      if (!controller.waitFor(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the controller did not stop within 60 s of SIGTERM");
      }
    } finally {
      controller.destroyForcibly();
    }
    if (!Files.isRegularFile(cache) || Files.size(cache) == 0) {
      throw new IllegalStateException(
          "no controller AOT cache written; see " + work.resolve("controller.log"));
    }
  }
}

package dev.ironcore.maintenance.image;

import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The training run of the controller's AOT cache ({@code hack/java-runtime.sh}; JDK 25, JEP
 * 483/514): the controller as its Deployment starts it, on the image's runtime, with {@code
 * -XX:AOTCacheOutput}, against a local kube-apiserver holding the CRDs and a small fleet (pools,
 * Leases, CAPI Machines with a nodeRef, bound Machines), until its caches are synced and its loops
 * ran; then stopped with SIGTERM, when the JVM writes the cache. The classes loaded and linked on
 * the way (fabric8's client and informers, Jackson's deserializers of every cached kind, the loops)
 * are what the cache holds; the shipped controller then starts from it.
 *
 * <p>The CRDs are installed without their conversion webhook (strategy None): the fleet is created
 * in v1alpha2, the version the controller reads, so the API server converts nothing.
 *
 * <p>Arguments: {@code <controlplane-dir> <work-dir> <image/target/jvm> <cache file to write>
 * <fleet.yaml>} ({@code image/src/aot-training/controller-fleet.yaml}). Exits 0 when the cache was
 * written, 1 otherwise (the message says why).
 */
public final class ControllerAotTraining {
  private ControllerAotTraining() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println(
          "usage: ControllerAotTraining <controlplane-dir> <work-dir> <image/target/jvm> <cache>"
              + " <fleet.yaml>");
      System.exit(2);
    }
    Path work = Files.createDirectories(Path.of(args[1]).toAbsolutePath());
    Path cache = Path.of(args[3]).toAbsolutePath();
    int status;
    try (LocalControlPlane cp = LocalControlPlane.start(Path.of(args[0]), work.resolve("cp"))) {
      install(cp, work, Path.of(args[4]));
      status =
          train(
              cp, ShippedContainer.of("controller_deployment.yaml", Path.of(args[2])), work, cache);
    }
    System.exit(status);
  }

  /** The CRDs (conversion strategy None), namespaces and the training fleet. */
  static void install(LocalControlPlane cp, Path work, Path fleet) throws IOException {
    Path manifests = ManifestPaths.overlay("crds").getParent();
    for (String dir : List.of("crds", "capi-local")) {
      try (var files = Files.list(manifests.resolve(dir))) {
        for (Path crd : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
          if (crd.getFileName().toString().equals("kustomization.yaml")) {
            continue;
          }
          Path noConversion = work.resolve(dir + "-" + crd.getFileName());
          Files.writeString(noConversion, withoutConversionWebhook(Files.readString(crd)));
          cp.kubectl("apply", "-f", noConversion.toString());
        }
      }
    }
    cp.kubectl("apply", "-k", manifests.resolve("namespaces").toString());
    cp.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s");
    cp.kubectl("apply", "--server-side", "-f", fleet.toString());
  }

  /** A CRD's YAML with its {@code conversion:} block replaced by {@code strategy: None}. */
  static String withoutConversionWebhook(String crd) {
    return crd.replaceAll(
        "(?m)^(  conversion:\\n)(    .*\\n)+", "  conversion:\n    strategy: None\n");
  }

  private static int train(LocalControlPlane cp, ShippedContainer c, Path work, Path cache)
      throws Exception {
    List<Integer> ports = FreePorts.pick(1);
    List<String> cmd = c.command();
    for (String arg : c.args()) {
      switch (arg.split("=", 2)[0]) {
        case "--health-probe-bind-address" ->
            cmd.add("--health-probe-bind-address=127.0.0.1:" + ports.get(0));
        case "--metrics-bind-address" -> cmd.add("--metrics-bind-address=0");
        default -> cmd.add(arg);
      }
    }
    String flags =
        c.javaToolOptions().replaceAll("-XX:AOTCache=\\S+", "")
            + " -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput="
            + cache;
    Files.deleteIfExists(cache);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(work.resolve("controller.log").toFile());
    pb.environment().put("JAVA_TOOL_OPTIONS", flags);
    pb.environment().put("MALLOC_ARENA_MAX", c.env("MALLOC_ARENA_MAX"));
    pb.environment().put("KUBECONFIG", cp.kubeconfig().toString());
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
        System.err.println(
            "controller AOT training: the controller did not become ready; see "
                + work.resolve("controller.log"));
        return 1;
      }
      Thread.sleep(3000); // the loops' first passes (drain, health, orphans)
      controller.destroy(); // SIGTERM: the JVM writes the cache as it exits
      if (!controller.waitFor(60, TimeUnit.SECONDS)) {
        System.err.println("controller AOT training: the controller did not stop within 60 s");
        return 1;
      }
    } finally {
      controller.destroyForcibly();
    }
    if (!Files.isRegularFile(cache) || Files.size(cache) == 0) {
      System.err.println(
          "controller AOT training: no cache written; see " + work.resolve("controller.log"));
      return 1;
    }
    return 0;
  }
}

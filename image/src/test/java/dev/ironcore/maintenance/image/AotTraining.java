package dev.ironcore.maintenance.image;

import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The training runs of the image's AOT caches ({@code hack/java-runtime.sh}; JDK 25, JEP 483/514):
 * each process as its Deployment starts it, on the image's runtime and class path, with {@code
 * -XX:AOTCacheOutput}, doing what it does when installed; stopped with SIGTERM, when the JVM writes
 * the cache of every class it loaded and linked on the way.
 *
 * <p>With a local control plane (etcd, kube-apiserver, kubectl) both run against one API server
 * holding the CRDs, the shipped namespaces and RBAC and a small fleet ({@link #install}): the
 * webhook server in its pod's environment (fabric8's in-cluster configuration with a token of the
 * shipped ServiceAccount), so its eviction warnings start and look up Machines as installed ({@link
 * WebhookAotTraining}); then the controller until its caches are synced and its loops ran ({@link
 * ControllerAotTraining}). Without one only the webhook is trained, without a cluster (its eviction
 * warnings off), and there is no controller cache.
 *
 * <p>Arguments: {@code <image/target/jvm> <work-dir> <aot-training-dir> <reviews-dir>
 * [<controlplane-dir>]}: {@code image/src/aot-training} (the fleet, {@code controller-fleet.yaml},
 * and the ConversionReview, {@code machine-conversion.json}) and the benchmark's reviews ({@code
 * bench/src/main/resources/reviews}). Writes {@code <jvm>/app/webhook.aot} and, with a control
 * plane, {@code <jvm>/app/controller.aot}. Exits 0 when every cache it was to write was written, 1
 * otherwise (the message says why and names the log).
 */
public final class AotTraining {
  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4 && args.length != 5) {
      System.err.println(
          "usage: AotTraining <image/target/jvm> <work-dir> <aot-training-dir> <reviews-dir>"
              + " [<controlplane-dir>]");
      System.exit(2);
    }
    Path jvm = Path.of(args[0]).toAbsolutePath();
    Path work = Files.createDirectories(Path.of(args[1]).toAbsolutePath());
    Path training = Path.of(args[2]).toAbsolutePath();
    Path reviews = Path.of(args[3]).toAbsolutePath();
    Path webhookCache = jvm.resolve("app/webhook.aot");
    try {
      if (args.length == 4) {
        WebhookAotTraining.train(
            jvm, work.resolve("webhook"), training, reviews, Map.of(), webhookCache);
      } else {
        try (LocalControlPlane cp = LocalControlPlane.start(Path.of(args[4]), work.resolve("cp"))) {
          install(cp, work, training.resolve("controller-fleet.yaml"));
          WebhookAotTraining.train(
              jvm,
              work.resolve("webhook"),
              training,
              reviews,
              cp.inClusterEnvironment(
                  "ironcore-maintenance-system",
                  "ironcore-maintenance-webhook",
                  work.resolve("serviceaccount")),
              webhookCache);
          ControllerAotTraining.train(
              cp,
              ShippedContainer.of("controller_deployment.yaml", jvm),
              work.resolve("controller"),
              jvm.resolve("app/controller.aot"));
        }
      }
    } catch (IllegalStateException e) {
      System.err.println("AOT training: " + e.getMessage());
      System.exit(1);
    }
    System.exit(0);
  }

  /**
   * The CRDs (conversion strategy None), the shipped namespaces and RBAC, and the training fleet
   * ({@code fleet}: pools, Leases, CAPI Machines with a nodeRef, bound Machines).
   *
   * <p>The CRDs are installed without their conversion webhook: the fleet is created in v1alpha2,
   * the version both processes read, so the API server converts nothing.
   */
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
          cp.kubectl("apply", "-f", noConversion.toString()).orThrow();
        }
      }
    }
    for (String overlay : List.of("namespaces", "rbac")) {
      cp.kubectl("apply", "-k", manifests.resolve(overlay).toString()).orThrow();
    }
    cp.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s").orThrow();
    cp.kubectl("apply", "--server-side", "-f", fleet.toString()).orThrow();
  }

  /**
   * The benchmark's MachinePool review ({@code reviews/machinepool-taint-update.json}: an UPDATE
   * adding a {@code NoExecute} taint) naming the training fleet's {@code pool-a} instead of the
   * benchmark's {@code bench-pool}, so its eviction warning lists the fleet's bound Machines.
   *
   * @param reviews the benchmark's review directory
   */
  static String fleetPoolReview(Path reviews) throws IOException {
    return Files.readString(reviews.resolve("machinepool-taint-update.json"))
        .replace("\"bench-pool\"", "\"pool-a\"");
  }

  /** A CRD's YAML with its {@code conversion:} block replaced by {@code strategy: None}. */
  static String withoutConversionWebhook(String crd) {
    return crd.replaceAll(
        "(?m)^(  conversion:\\n)(    .*\\n)+", "  conversion:\n    strategy: None\n");
  }
}

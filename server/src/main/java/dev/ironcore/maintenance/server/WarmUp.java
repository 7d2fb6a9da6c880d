package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import dev.ironcore.maintenance.server.conversion.ConversionReviews;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers built-in sample reviews on every admission path and the conversion path before the server
 * listens, so that the API server's first requests run compiled code instead of the interpreter
 * (the server's JVM compiles a method after a few hundred calls; {@code make bench}, first 10,000
 * requests). The samples go through the same pure functions as real requests ({@link
 * AdmissionReviews#answer(String, byte[], AdmissionHandler)}, {@link
 * ConversionReviews#answer(String, byte[])}), are all allowed (their decisions are not logged,
 * {@link AdmissionReviews#WARM_UP_UID}) and are not counted in the metrics. It runs on a thread of
 * its own while the server sets up TLS and Jetty ({@link #inBackground}), mostly on the second
 * core; the server listens once it is done, or at the latest {@link #MAX_WAIT} after it began.
 */
public final class WarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);

  /**
   * Rounds the server runs: each sample review is answered this many times (210 answers in 0.25 to
   * 0.3 s with the shipped flags and AOT cache, mostly interpreted while the two compiler threads
   * work). With the shipped two C1 compiler threads ({@code -XX:CICompilerCount=2}), one-off starts
   * (8 each): 30 rounds gave 8,578 reviews/s over the first 10,000 with ready after 637 ms
   * (medians), 60 rounds 9,034/s after 700 ms, and 100 rounds with one compiler thread 7,190/s
   * after 625 ms.
   */
  public static final int ROUNDS = 30;

  /** The uid of every sample review: their allowed decisions are not logged. */
  static final String UID = AdmissionReviews.WARM_UP_UID;

  private WarmUp() {}

  /**
   * Answers every sample review {@code rounds} times, or fewer when the calling thread is
   * interrupted (checked before each round).
   *
   * @param routes admission path → handler ({@link AdmissionRoutes#create}); a path without a
   *     sample is skipped
   * @param rounds how many times; 0 does nothing
   * @return how many reviews were answered
   */
  public static int run(Map<String, AdmissionHandler> routes, int rounds) {
    Map<String, byte[]> samples = samples();
    byte[][] conversions = conversions();
    int answered = 0;
    for (int i = 0; i < rounds && !Thread.currentThread().isInterrupted(); i++) {
      for (Map.Entry<String, AdmissionHandler> route : routes.entrySet()) {
        byte[] review = samples.get(route.getKey());
        if (review != null) {
          AdmissionReviews.answer(route.getKey(), review, route.getValue()).toBytes();
          answered++;
        }
      }
      for (byte[] review : conversions) {
        ConversionReviews.toBytes(
            ConversionReviews.answer(AdmissionRoutes.CONVERT, review).review());
        answered++;
      }
    }
    return answered;
  }

  /**
   * The longest the server waits for the warm-up, counted from its start: 0.5 s. With the image's
   * AOT cache the 30 rounds take 0.25 to 0.3 s; without it (e.g. {@code make run} on another JDK),
   * or on a CPU-starved node, they can take seconds, and then the rest is skipped ({@link
   * #awaitAtMost}).
   */
  public static final java.time.Duration MAX_WAIT = java.time.Duration.ofMillis(500);

  /**
   * Starts {@link #run} on a daemon thread named {@code warm-up}; wait for it with {@link
   * #awaitAtMost} before listening. A failure is logged as a warning and never stops the server.
   *
   * @return the started thread
   */
  public static Thread inBackground(Map<String, AdmissionHandler> routes, int rounds) {
    Objects.requireNonNull(routes, "routes");
    Thread thread =
        new Thread(
            () -> {
              long start = System.nanoTime();
              try {
                int answered = run(routes, rounds);
                LOG.debug(
                    "warm-up: {} sample reviews answered in {} ms",
                    answered,
                    (System.nanoTime() - start) / 1_000_000);
              } catch (RuntimeException e) {
                LOG.warn("warm-up failed (the server still starts): {}", e.toString());
              }
            },
            "warm-up");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /**
   * Waits until the warm-up ends or {@code limit} has passed since {@code startNanos}; at the limit
   * it is interrupted and stops after its current round (it does not wait for that).
   *
   * @param warmUp the thread of {@link #inBackground}
   * @param startNanos {@link System#nanoTime()} when it was started
   * @param limit the longest wait, counted from {@code startNanos}
   * @return true when the warm-up had finished, false when it was cut short
   */
  public static boolean awaitAtMost(Thread warmUp, long startNanos, java.time.Duration limit) {
    long remaining = limit.toNanos() - (System.nanoTime() - startNanos);
    try {
      if (remaining > 0) {
        warmUp.join(remaining / 1_000_000, (int) (remaining % 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (warmUp.isAlive()) {
      warmUp.interrupt();
      LOG.debug("warm-up: cut short after {} ms", limit.toMillis());
      return false;
    }
    return true;
  }

  /** Path → sample review (UTF-8 JSON): typical objects of each kind, a few KB each. */
  static Map<String, byte[]> samples() {
    Map<String, byte[]> samples = new LinkedHashMap<>();
    samples.put(AdmissionRoutes.MUTATE_CAPI_MACHINE, admission(CAPI_MACHINE, "CREATE", "null"));
    samples.put(AdmissionRoutes.MUTATE_MACHINE, admission(MACHINE, "CREATE", "null"));
    samples.put(AdmissionRoutes.VALIDATE_MACHINE, admission(MACHINE, "UPDATE", MACHINE_OBJECT));
    samples.put(AdmissionRoutes.MUTATE_MACHINEPOOL, admission(POOL, "UPDATE", POOL_OBJECT));
    samples.put(AdmissionRoutes.VALIDATE_MACHINEPOOL, admission(POOL, "UPDATE", POOL_OBJECT));
    return samples;
  }

  /**
   * Sample ConversionReviews: v1alpha1 objects to the hub version v1alpha2 (a v1alpha1 client
   * writes) and back (it reads).
   */
  static byte[][] conversions() {
    return new byte[][] {
      conversion("v1alpha2", v1alpha1(MACHINE_OBJECT) + "," + v1alpha1(POOL_OBJECT)),
      conversion("v1alpha1", MACHINE_OBJECT + "," + POOL_OBJECT)
    };
  }

  private static byte[] conversion(String desiredVersion, String objects) {
    return ("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
            + "\"request\":{\"uid\":\""
            + UID
            + "\",\"desiredAPIVersion\":\"compute.ironcore.dev/"
            + desiredVersion
            + "\",\"objects\":["
            + objects
            + "]}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The same object as v1alpha1 (which has no {@code tolerationSeconds}). */
  private static String v1alpha1(String object) {
    return object
        .replace("compute.ironcore.dev/v1alpha2", "compute.ironcore.dev/v1alpha1")
        .replace(",\"tolerationSeconds\":300", "");
  }

  private static byte[] admission(String[] kind, String operation, String oldObject) {
    return ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
            + "\"uid\":\""
            + UID
            + "\",\"kind\":"
            + kind[0]
            + ",\"resource\":"
            + kind[1]
            + ",\"name\":\"warm-up\",\"namespace\":\"warm-up\",\"operation\":\""
            + operation
            + "\",\"userInfo\":{\"username\":\"system:serviceaccount:warm-up:warm-up\","
            + "\"groups\":[\"system:serviceaccounts\",\"system:authenticated\"]},"
            + "\"object\":"
            + kind[2]
            + ",\"oldObject\":"
            + oldObject
            + ",\"dryRun\":false}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static final String MANAGED_FIELDS =
      "\"managedFields\":[{\"manager\":\"manager\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
          + "\"time\":\"2026-01-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{"
          + "\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},\"f:spec\":{\".\":{}}}}]";

  private static final String CAPI_MACHINE_OBJECT =
      "{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\",\"kind\":\"Machine\",\"metadata\":{"
          + "\"name\":\"warm-up\",\"namespace\":\"warm-up\",\"labels\":{"
          + "\"cluster.x-k8s.io/cluster-name\":\"warm-up\","
          + "\"cluster.x-k8s.io/deployment-name\":\"warm-up-md-0\"},"
          + "\"annotations\":{\"cluster.x-k8s.io/cloned-from-name\":\"warm-up\"},"
          + "\"ownerReferences\":[{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\","
          + "\"kind\":\"MachineSet\",\"name\":\"warm-up-md-0\",\"uid\":\"warm-up\","
          + "\"controller\":true,\"blockOwnerDeletion\":true}],"
          + MANAGED_FIELDS
          + "},\"spec\":{\"clusterName\":\"warm-up\",\"version\":\"v1.34.0\","
          + "\"bootstrap\":{\"configRef\":{\"apiVersion\":\"bootstrap.cluster.x-k8s.io/v1beta1\","
          + "\"kind\":\"KubeadmConfig\",\"name\":\"warm-up\",\"namespace\":\"warm-up\"}},"
          + "\"infrastructureRef\":{\"apiVersion\":\"infrastructure.cluster.x-k8s.io/v1alpha1\","
          + "\"kind\":\"IroncoreMachine\",\"name\":\"warm-up\",\"namespace\":\"warm-up\"}}}";

  private static final String MACHINE_OBJECT =
      "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\",\"metadata\":{"
          + "\"name\":\"warm-up\",\"namespace\":\"warm-up\",\"uid\":\"warm-up\","
          + "\"resourceVersion\":\"1\",\"labels\":{\"app\":\"warm-up\"},"
          + "\"finalizers\":[\"machinepoollet.ironcore.dev/machine\"],"
          + MANAGED_FIELDS
          + "},\"spec\":{\"machineClassRef\":{\"name\":\"x2-medium\"},"
          + "\"machinePoolRef\":{\"name\":\"warm-up\"},\"image\":\"registry.example/os:1\","
          + "\"power\":\"On\",\"networkInterfaces\":[{\"name\":\"primary\",\"networkInterfaceRef\":"
          + "{\"name\":\"warm-up\"}}],\"volumes\":[{\"name\":\"root\",\"volumeRef\":"
          + "{\"name\":\"warm-up\"}}],\"tolerations\":[{\"key\":\"maintenance\","
          + "\"operator\":\"Exists\",\"effect\":\"NoSchedule\"},{\"key\":\"upgrade\","
          + "\"operator\":\"Equal\",\"value\":\"os\",\"effect\":\"NoExecute\","
          + "\"tolerationSeconds\":300}]},\"status\":{\"state\":\"Running\"}}";

  private static final String POOL_OBJECT =
      "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"MachinePool\",\"metadata\":{"
          + "\"name\":\"warm-up\",\"uid\":\"warm-up\",\"resourceVersion\":\"1\","
          + "\"labels\":{\"topology.kubernetes.io/zone\":\"zone-a\"},"
          + MANAGED_FIELDS
          + "},\"spec\":{\"providerID\":\"ironcore://warm-up\",\"taints\":[{\"key\":\"maintenance\","
          + "\"value\":\"planned\",\"effect\":\"NoSchedule\"},{\"key\":\"zone\","
          + "\"effect\":\"PreferNoSchedule\"}]},\"status\":{\"state\":\"Ready\"}}";

  private static final String[] CAPI_MACHINE = {
    "{\"group\":\"cluster.x-k8s.io\",\"version\":\"v1beta1\",\"kind\":\"Machine\"}",
    "{\"group\":\"cluster.x-k8s.io\",\"version\":\"v1beta1\",\"resource\":\"machines\"}",
    CAPI_MACHINE_OBJECT
  };

  /** A new Machine: no poollet finalizer yet (the mutation adds it). */
  private static final String[] MACHINE = {
    "{\"group\":\"compute.ironcore.dev\",\"version\":\"v1alpha2\",\"kind\":\"Machine\"}",
    "{\"group\":\"compute.ironcore.dev\",\"version\":\"v1alpha2\",\"resource\":\"machines\"}",
    MACHINE_OBJECT.replace("\"finalizers\":[\"machinepoollet.ironcore.dev/machine\"],", "")
  };

  private static final String[] POOL = {
    "{\"group\":\"compute.ironcore.dev\",\"version\":\"v1alpha2\",\"kind\":\"MachinePool\"}",
    "{\"group\":\"compute.ironcore.dev\",\"version\":\"v1alpha2\",\"resource\":\"machinepools\"}",
    POOL_OBJECT
  };
}

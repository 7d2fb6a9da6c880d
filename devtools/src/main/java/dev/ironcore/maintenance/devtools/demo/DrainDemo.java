package dev.ironcore.maintenance.devtools.demo;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.client.KubeconfigConverter;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.Clusters;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * LOCAL DEMO for {@code make run}: creates MachinePool {@code pool-a} with three Machines (one
 * tolerating {@code maintenance.ironcore.dev}) and a CAPI Machine on node {@code pool-a}, deletes
 * the CAPI Machine and prints each step of the drain as it is observed, with the time since the
 * deletion. Expects the webhook server and the controller with both simulators to be running. The
 * CAPI cluster is found as kubectl finds it; {@code IRONCORE_KUBECONFIG}, when set, names a
 * separate IronCore API for the pool and its Machines (as the controller's {@code
 * --ironcore-kubeconfig}). Takes no arguments ({@code --help} prints the usage, others exit 2).
 * Exit code 0 when the pool is gone and the CAPI Machine released, 1 otherwise (timeout 120 s).
 */
public final class DrainDemo {
  static final String NAMESPACE = "demo";
  static final String POOL = "pool-a";
  static final String CAPI_MACHINE = "node-a";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  private final Clusters clusters;
  private final PrintStream out;
  private final Set<String> seen = new LinkedHashSet<>();
  private long start;

  private final boolean addPoolletFinalizers;

  /**
   * @param addPoolletFinalizers write the poollet finalizer into the Machines ourselves (for a
   *     cluster without our webhooks); {@code make run} leaves it to the mutating webhook
   */
  DrainDemo(KubernetesClient client, PrintStream out, boolean addPoolletFinalizers) {
    this(Clusters.single(client), out, addPoolletFinalizers);
  }

  /**
   * @param clusters CAPI Machines in {@code capi()}, MachinePool and Machines in {@code ironcore()}
   */
  DrainDemo(Clusters clusters, PrintStream out, boolean addPoolletFinalizers) {
    this.clusters = clusters;
    this.out = out;
    this.addPoolletFinalizers = addPoolletFinalizers;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0) {
      PrintStream stream = isHelp(args) ? System.out : System.err;
      if (!isHelp(args)) {
        stream.println("DrainDemo: unexpected argument " + args[0]);
      }
      stream.println(
          "usage: DrainDemo (no arguments; the API server from $KUBECONFIG, IronCore objects"
              + " in $IRONCORE_KUBECONFIG if set, the CAPI Machine labelled to match"
              + " $CAPI_MACHINE_SELECTOR)");
      System.exit(isHelp(args) ? 0 : 2);
    }
    String ironcoreKubeconfig = System.getenv("IRONCORE_KUBECONFIG");
    KubernetesClient capi = dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder().build();
    try (Clusters clusters =
        ironcoreKubeconfig == null || ironcoreKubeconfig.isBlank()
            ? Clusters.single(capi)
            : new Clusters(
                capi,
                dev.ironcore.maintenance.api.json.JsonMappers.client(
                    new KubeconfigConverter().convert(ironcoreKubeconfig)))) {
      System.exit(new DrainDemo(clusters, System.out, false).run() ? 0 : 1);
    }
  }

  private static boolean isHelp(String[] args) {
    return args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"));
  }

  boolean run() throws Exception {
    String selector = System.getenv().getOrDefault("CAPI_MACHINE_SELECTOR", "");
    Map<String, String> labels = SelectedLabels.satisfying(selector);
    if (!labels.isEmpty()) {
      say("CAPI_MACHINE_SELECTOR=%s: labelling the CAPI Machine %s", selector, labels);
    }
    DemoObjects.create(clusters, NAMESPACE, POOL, CAPI_MACHINE, labels, addPoolletFinalizers);
    say(
        "created MachinePool %s; Machines %s/vm-1, vm-2 (no tolerations), vm-tolerant (tolerates %s); CAPI Machine %s/%s with status.nodeRef.name=%s",
        POOL, NAMESPACE, Names.MAINTENANCE_TAINT_KEY, NAMESPACE, CAPI_MACHINE, POOL);
    if (!waitFor(
        Duration.ofSeconds(20),
        () -> {
          CapiMachine m = capi();
          return m != null
              && m.getMetadata().getFinalizers().contains(Names.CLEANUP_FINALIZER)
              && m.getMetadata().getAnnotations() != null
              && m.getMetadata().getAnnotations().containsKey(Names.PRE_DRAIN_HOOK_ANNOTATION);
        })) {
      say(
          "FAILED: %s/%s never got %s and the pre-drain hook — are the webhook server and controller running?",
          NAMESPACE, CAPI_MACHINE, Names.CLEANUP_FINALIZER);
      return false;
    }
    say(
        "CAPI Machine carries finalizer %s and pre-drain hook %s",
        Names.CLEANUP_FINALIZER, Names.PRE_DRAIN_HOOK_ANNOTATION);
    for (String vm : List.of("vm-1", "vm-2", "vm-tolerant")) {
      Machine m = machine(vm);
      say("Machine %s finalizers: %s", vm, m.getMetadata().getFinalizers());
    }
    say("%s", bothVersions("vm-tolerant"));

    clusters
        .capi()
        .resources(CapiMachine.class)
        .inNamespace(NAMESPACE)
        .withName(CAPI_MACHINE)
        .delete();
    start = System.nanoTime();
    say(
        "deleted CAPI Machine %s/%s (as Cluster API would on scale-down); watching the drain:",
        NAMESPACE, CAPI_MACHINE);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      observe();
      if (seen.contains("capi-gone")) {
        Machine tolerant = machine("vm-tolerant");
        say(
            "done: %.1f s from CAPI Machine deletion to pool deletion; vm-tolerant %s",
            poolDeletedAt / 1e9,
            tolerant != null && tolerant.getMetadata().getDeletionTimestamp() == null
                ? "untouched (it tolerates the maintenance taint, so it stays, still bound to the deleted pool)"
                : "TOUCHED (unexpected)");
        return true;
      }
      Thread.sleep(100);
    }
    say("FAILED: drain did not finish within %d s; see .local/controller.log", TIMEOUT.toSeconds());
    return false;
  }

  private long poolDeletedAt;

  /**
   * One poll; prints newly seen steps in the drain's own order, even if several happened since the
   * last poll.
   */
  private void observe() {
    // CAPI Machine first: once it is gone the pool is gone too
    CapiMachine capi = capi();
    MachinePool pool = clusters.ironcore().resources(MachinePool.class).withName(POOL).get();
    if (pool != null) {
      List<String> maint =
          pool.getSpec().taintsOrEmpty().stream()
              .filter(t -> Names.MAINTENANCE_TAINT_KEY.equals(t.getKey()))
              .map(Object::toString)
              .collect(Collectors.toList());
      if (maint.size() == 2) {
        once("taints", "pool %s tainted: %s", POOL, String.join(", ", maint));
      }
    }
    for (String vm : List.of("vm-1", "vm-2")) {
      Machine m = machine(vm);
      if (m != null && m.getMetadata().getDeletionTimestamp() != null) {
        once("evicted-" + vm, "Machine %s evicted (deleting; the poollet shuts its VM down)", vm);
      }
      if (m == null) {
        once("evicted-" + vm, "Machine %s evicted", vm);
        once("gone-" + vm, "Machine %s released by the poollet and gone", vm);
      }
    }
    boolean hookGone =
        capi == null
            || capi.getMetadata().getAnnotations() == null
            || !capi.getMetadata().getAnnotations().containsKey(Names.PRE_DRAIN_HOOK_ANNOTATION);
    if (hookGone) {
      once("hook", "pre-drain hook removed: pool drained, CAPI may drain and delete the node");
    }
    if (capi == null
        || !capi.getMetadata().getFinalizers().contains(Names.CAPI_MACHINE_FINALIZER)) {
      once(
          "capi-finalizer",
          "CAPI finalizer %s gone (CAPI stand-in finished the node)",
          Names.CAPI_MACHINE_FINALIZER);
    }
    if (pool == null || pool.getMetadata().getDeletionTimestamp() != null) {
      if (!seen.contains("pool")) {
        poolDeletedAt = System.nanoTime() - start;
      }
      once("pool", "MachinePool %s deleted", POOL);
    }
    if (capi == null) {
      once("capi-gone", "our finalizer released: CAPI Machine %s/%s gone", NAMESPACE, CAPI_MACHINE);
    }
  }

  private void once(String key, String format, Object... args) {
    if (seen.add(key)) {
      say(format, args);
    }
  }

  private void say(String format, Object... args) {
    String elapsed =
        start == 0 ? "      " : String.format("%5.1fs", (System.nanoTime() - start) / 1e9);
    out.printf("[demo %s] %s%n", elapsed, String.format(format, args));
    out.flush();
  }

  /**
   * @return one line with Machine {@code name} read as v1alpha1 and as v1alpha2 (the API server
   *     converts through the webhook server's {@code /convert}; v1alpha2 is stored)
   */
  private String bothVersions(String name) {
    StringBuilder line = new StringBuilder("Machine " + name + " read in both versions:");
    for (String version : List.of("v1alpha1", "v1alpha2")) {
      GenericKubernetesResource r =
          clusters
              .ironcore()
              .genericKubernetesResources(Names.COMPUTE_GROUP + "/" + version, "Machine")
              .inNamespace(NAMESPACE)
              .withName(name)
              .get();
      Object spec = r == null ? null : r.getAdditionalProperties().get("spec");
      Object tolerations = spec instanceof Map<?, ?> m ? m.get("tolerations") : null;
      line.append(version.equals("v1alpha1") ? " " : " | ")
          .append(r == null ? version + " NOT READABLE" : r.getApiVersion())
          .append(" tolerations=")
          .append(
              dev.ironcore.maintenance.api.json.JsonMappers.shared()
                  .valueToTree(tolerations)
                  .toString());
    }
    return line.toString();
  }

  private CapiMachine capi() {
    return clusters
        .capi()
        .resources(CapiMachine.class)
        .inNamespace(NAMESPACE)
        .withName(CAPI_MACHINE)
        .get();
  }

  private Machine machine(String name) {
    return clusters.ironcore().resources(Machine.class).inNamespace(NAMESPACE).withName(name).get();
  }

  private static boolean waitFor(Duration timeout, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.api.patch.MetadataPatches;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.awaitility.core.ConditionFactory;

/**
 * One test's small world on the shared real control plane (etcd + kube-apiserver): its own
 * namespace and uniquely named pools, plus helpers that act as the user, the machinepoollet and
 * CAPI would. The CRDs (manifests/crds and manifests/capi-local) are installed once per JVM, with
 * the conversion webhook served in this JVM ({@link CrdsWithConversion}).
 */
final class ControllerWorld {
  private static boolean crdsInstalled;

  final TestCluster cp;
  final KubernetesClient client;

  /** Where MachinePools and Machines live: {@link #client} unless the world spans two clusters. */
  final KubernetesClient ironcore;

  final KubeWriter writer;
  final String ns;
  final String suffix;

  ControllerWorld() {
    this(null);
  }

  /**
   * @param ironcoreCluster a second API server for MachinePools and Machines (its CRDs installed),
   *     or null for one cluster; CAPI Machines always live in the shared cluster
   */
  ControllerWorld(TestCluster ironcoreCluster) {
    this(sharedWithCrds(), ironcoreCluster);
  }

  /**
   * A world entirely in {@code own}, a cluster of the test's own (e.g. one whose API server the
   * test restarts); installs the CRDs there (the conversion webhook served in this JVM).
   */
  static ControllerWorld in(TestCluster own) {
    CrdsWithConversion.install(own);
    return new ControllerWorld(own, null);
  }

  private static TestCluster sharedWithCrds() {
    TestCluster shared = TestClusters.shared();
    installCrds(shared);
    return shared;
  }

  private ControllerWorld(TestCluster cp, TestCluster ironcoreCluster) {
    this.cp = cp;
    client = cp.client();
    ironcore = ironcoreCluster == null ? client : ironcoreCluster.client();
    writer = new KubeWriter(client);
    suffix = UUID.randomUUID().toString().substring(0, 6);
    ns = "t-" + suffix;
    for (KubernetesClient c : ironcore == client ? List.of(client) : List.of(client, ironcore)) {
      c.namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
  }

  /**
   * A copy of the world's kubeconfig, in {@code dir}, whose server is {@code proxy} (a {@link
   * dev.ironcore.maintenance.testkit.faults.SilentTcpProxy} started by {@link #proxy()}).
   */
  java.nio.file.Path kubeconfigVia(
      dev.ironcore.maintenance.testkit.faults.SilentTcpProxy proxy, java.nio.file.Path dir)
      throws java.io.IOException {
    String kubeconfig = java.nio.file.Files.readString(cp.kubeconfig());
    java.net.URI api = apiServer(kubeconfig);
    return java.nio.file.Files.writeString(
        java.nio.file.Files.createDirectories(dir).resolve(ns + ".kubeconfig"),
        kubeconfig.replace(api.toString(), "https://" + api.getHost() + ":" + proxy.port()));
  }

  /** A {@code SilentTcpProxy} to the world's API server. */
  dev.ironcore.maintenance.testkit.faults.SilentTcpProxy proxy() throws java.io.IOException {
    java.net.URI api = apiServer(java.nio.file.Files.readString(cp.kubeconfig()));
    return dev.ironcore.maintenance.testkit.faults.SilentTcpProxy.start(
        new java.net.InetSocketAddress(api.getHost(), api.getPort()));
  }

  private static java.net.URI apiServer(String kubeconfig) {
    java.util.regex.Matcher server =
        java.util.regex.Pattern.compile("server: (https://[^\\s]+)").matcher(kubeconfig);
    if (!server.find()) {
      throw new IllegalStateException("no server in the kubeconfig");
    }
    return java.net.URI.create(server.group(1));
  }

  private static synchronized void installCrds(TestCluster cp) {
    if (crdsInstalled) {
      return;
    }
    CrdsWithConversion.install(cp);
    crdsInstalled = true;
  }

  /**
   * For a controller process to start and list (a JVM start on a loaded machine can take tens of
   * seconds).
   */
  static ConditionFactory processStarts() {
    return await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250));
  }

  static ConditionFactory eventually() {
    return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100));
  }

  /**
   * What kubectl prints for {@code jsonpath} over the Events of this namespace on {@code involved}
   * with {@code reason}.
   */
  /**
   * The reasons of the Events on object {@code involved} in namespace {@code namespace}, in the
   * order {@code kubectl get events} lists them (by name), each followed by a space.
   */
  String eventReasonsAsListed(String namespace, String involved) {
    return cp.kubectl(
            "get",
            "events",
            "-n",
            namespace,
            "--field-selector",
            "involvedObject.name=" + involved,
            "-o",
            "jsonpath={range .items[*]}{.reason} {end}")
        .orThrow()
        .stdout();
  }

  String eventsJsonpath(String involved, String reason, String jsonpath) {
    return cp.kubectl(
            "get",
            "events",
            "-n",
            ns,
            "--field-selector",
            "involvedObject.name=" + involved + ",reason=" + reason,
            "-o",
            "jsonpath=" + jsonpath)
        .orThrow()
        .stdout();
  }

  /**
   * Creates the admission configuration or policy in {@code yaml} ({@code kubectl create -f -}) and
   * waits until the API server enforces it: until the kubectl command {@code refusedProbe} fails.
   */
  void createEnforced(String yaml, String... refusedProbe) {
    cp.kubectlTool().runWithInput(yaml, "create", "-f", "-").orThrow();
    eventually().until(() -> !cp.kubectl(refusedProbe).ok());
  }

  /**
   * A ValidatingWebhookConfiguration {@code name} (failurePolicy Fail) that sends UPDATEs of {@code
   * resource} (e.g. {@code machinepools} or {@code machinepools/status}) of the pools labelled
   * {@code label=<this namespace>} to {@code url}, waiting {@code timeoutSeconds} for an answer;
   * labels {@code pool} so, creates the configuration and waits until the API server enforces it.
   * Delete it with {@code kubectl delete validatingwebhookconfigurations NAME}.
   */
  void createPoolWebhook(
      String name, String pool, String label, String resource, String url, int timeoutSeconds) {
    cp.kubectl("label", "machinepools.compute.ironcore.dev", pool, label + "=" + ns).orThrow();
    String yaml =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingWebhookConfiguration
        metadata:
          name: %s
        webhooks:
        - name: %s.e2e.ironcore.dev
          clientConfig:
            url: %s
          rules:
          - apiGroups: ["compute.ironcore.dev"]
            apiVersions: ["*"]
            operations: ["UPDATE"]
            resources: ["%s"]
          objectSelector:
            matchLabels:
              %s: "%s"
          failurePolicy: Fail
          sideEffects: None
          admissionReviewVersions: ["v1"]
          timeoutSeconds: %d
        """
            .formatted(name, label, url, resource, label, ns, timeoutSeconds);
    String[] probe =
        resource.endsWith("/status")
            ? new String[] {
              "patch",
              "machinepools.compute.ironcore.dev",
              pool,
              "--subresource=status",
              "--type=merge",
              "-p",
              "{\"status\":{\"state\":\"Ready\"}}",
              "--dry-run=server"
            }
            : new String[] {
              "label", "machinepools.compute.ironcore.dev", pool, "probe=1", "--dry-run=server"
            };
    createEnforced(yaml, probe);
  }

  String poolName(String base) {
    return base + "-" + suffix;
  }

  /**
   * {@code kubectl patch machinepools.compute.ironcore.dev POOL --type=json -p PATCH}, as a user
   * would (the served version, through the webhooks).
   *
   * @throws IllegalStateException when kubectl fails (e.g. a webhook denies the write)
   */
  void kubectlPatchPool(String pool, String jsonPatch) {
    cp.kubectl("patch", "machinepools.compute.ironcore.dev", pool, "--type=json", "-p", jsonPatch)
        .orThrow();
  }

  MachinePool createPool(String name, List<String> finalizers, Taint... taints) {
    MachinePool p = new MachinePool();
    p.setMetadata(new ObjectMetaBuilder().withName(name).withFinalizers(finalizers).build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setProviderID("ironcore://" + name);
    if (taints.length > 0) {
      spec.setTaints(new ArrayList<>(List.of(taints)));
    }
    p.setSpec(spec);
    return ironcore.resources(MachinePool.class).resource(p).create();
  }

  /** A Machine bound to {@code pool} holding the poollet finalizer, as the machinepoollet would. */
  Machine createMachine(String name, String pool, Toleration... tolerations) {
    Machine m = new Machine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .withFinalizers(pool == null ? List.of() : List.of(Names.POOLLET_FINALIZER))
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachineClassRef(new LocalRef("x3-small"));
    spec.setMachinePoolRef(pool == null ? null : new LocalRef(pool));
    spec.setTolerations(tolerations.length == 0 ? null : List.of(tolerations));
    spec.setAdditionalProperty("image", "ghcr.io/ironcore-dev/os-images/gardenlinux:1592");
    m.setSpec(spec);
    return ironcore.resources(Machine.class).inNamespace(ns).resource(m).create();
  }

  /**
   * A CAPI Machine with CAPI's finalizer (plus {@code extraFinalizers}) and, if given,
   * status.nodeRef.
   */
  CapiMachine createCapiMachine(
      String name, String node, Map<String, String> labels, String... extraFinalizers) {
    CapiMachine m = new CapiMachine();
    List<String> finalizers = new ArrayList<>(List.of(Names.CAPI_MACHINE_FINALIZER));
    finalizers.addAll(List.of(extraFinalizers));
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .withLabels(labels)
            .withFinalizers(finalizers)
            .build());
    m.setSpec(new dev.ironcore.maintenance.api.capi.CapiMachineSpec());
    m.getSpec().setAdditionalProperty("clusterName", "demo");
    CapiMachine created = client.resources(CapiMachine.class).inNamespace(ns).resource(m).create();
    return node == null ? created : setNodeRef(name, node);
  }

  /** Sets the CAPI Machine's {@code status.nodeRef.name}, as CAPI does once the node joined. */
  CapiMachine setNodeRef(String name, String node) {
    // a merge patch, not an update: the controller may have added its finalizer meanwhile
    return client
        .resources(CapiMachine.class)
        .inNamespace(ns)
        .withName(name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"nodeRef\":{\"name\":\"" + node + "\"}}}");
  }

  MachinePool pool(String name) {
    return ironcore.resources(MachinePool.class).withName(name).get();
  }

  Machine machine(String name) {
    return ironcore.resources(Machine.class).inNamespace(ns).withName(name).get();
  }

  CapiMachine capiMachine(String name) {
    return client.resources(CapiMachine.class).inNamespace(ns).withName(name).get();
  }

  void deleteCapiMachine(String name) {
    client.resources(CapiMachine.class).inNamespace(ns).withName(name).delete();
  }

  /** Acts as the machinepoollet: the VM is off, release the Machine. */
  void poolletReleases(String machine) {
    removeFinalizer(
        ironcore.resources(Machine.class).inNamespace(ns).withName(machine),
        Names.POOLLET_FINALIZER);
  }

  /** Acts as CAPI: node drained and deleted, drop {@code machine.cluster.x-k8s.io}. */
  void capiFinishes(String capiMachine) {
    removeFinalizer(
        client.resources(CapiMachine.class).inNamespace(ns).withName(capiMachine),
        Names.CAPI_MACHINE_FINALIZER);
  }

  <T extends io.fabric8.kubernetes.api.model.HasMetadata> void removeFinalizer(
      io.fabric8.kubernetes.client.dsl.Resource<T> r, String finalizer) {
    Function<MetadataPatches.Editor, MetadataPatches.Editor> edit =
        e -> e.removeFinalizer(finalizer);
    writer.patchMetadata(r, edit);
  }

  /** Removes annotation {@code key} by hand (a JSON Patch guarded by the resourceVersion). */
  <T extends io.fabric8.kubernetes.api.model.HasMetadata> void removeAnnotation(
      io.fabric8.kubernetes.client.dsl.Resource<T> r, String key) {
    Function<MetadataPatches.Editor, MetadataPatches.Editor> edit = e -> e.removeAnnotation(key);
    writer.patchMetadata(r, edit);
  }

  static boolean hasHook(CapiMachine m) {
    var a = m.getMetadata().getAnnotations();
    return a != null && a.containsKey(Names.PRE_DRAIN_HOOK_ANNOTATION);
  }

  static List<String> taintStrings(MachinePool p) {
    return p.getSpec().taintsOrEmpty().stream().map(t -> t.getKey() + ":" + t.getEffect()).toList();
  }

  static Toleration toleratesMaintenance() {
    return new Toleration(Names.MAINTENANCE_TAINT_KEY, "Exists", null, null);
  }
}

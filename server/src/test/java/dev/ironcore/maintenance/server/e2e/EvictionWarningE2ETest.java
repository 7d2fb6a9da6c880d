package dev.ironcore.maintenance.server.e2e;

import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.POOLS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.server.warning.BoundMachines;
import dev.ironcore.maintenance.server.warning.LiveBoundMachines;
import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The MachinePool webhook's eviction warning, printed by kubectl, with the server watching Machines
 * as its own ServiceAccount (impersonated, with only the shipped {@code manifests/rbac} granting it
 * anything); and the same patch, silent, once that access is removed.
 */
class EvictionWarningE2ETest {
  static final String SERVICE_ACCOUNT =
      "system:serviceaccount:ironcore-maintenance-system:ironcore-maintenance-webhook";

  private final WebhookEnvironment env = WebhookEnvironment.get();
  private KubernetesClient asWebhook;

  @AfterEach
  void restore() {
    WebhookEnvironment.MACHINES.set(BoundMachines.NONE);
    if (asWebhook != null) {
      asWebhook.close();
    }
    env.kubectl("apply", "--server-side", "-k", ManifestPaths.overlay("rbac").toString());
  }

  /** What the server reads bound Machines with, as its ServiceAccount (shipped RBAC only). */
  private LiveBoundMachines asWebhook() throws Exception {
    Config config = Config.fromKubeconfig(Files.readString(env.cp.kubeconfig()));
    config.setImpersonateUsername(SERVICE_ACCOUNT);
    asWebhook = LiveBoundMachines.client(config);
    return new LiveBoundMachines(asWebhook);
  }

  private void machine(String ns, String name, String pool, String tolerations) {
    env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: %s, namespace: %s}
            spec:
              machineClassRef: {name: x3-small}
              machinePoolRef: {name: %s}
              tolerations: %s
            """
                .formatted(name, ns, pool, tolerations))
        .orThrow();
  }

  private KubectlResult addTaint(String pool, String key) {
    return env.kubectl(
        "patch",
        POOLS,
        pool,
        "--type=json",
        "-p",
        "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\""
            + key
            + "\",\"value\":\"v\",\"effect\":\"NoExecute\"}}]");
  }

  @Test
  void addingANoExecuteTaintWarnsWithTheNumberOfMachinesEvictedAndIsSilentWithoutApiAccess()
      throws Exception {
    String ns = env.newNamespace();
    String pool = "warn-" + UUID.randomUUID().toString().substring(0, 6);
    env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: MachinePool
            metadata: {name: %s}
            spec: {providerID: "ironcore://%s", taints: []}
            """
                .formatted(pool, pool))
        .orThrow();
    machine(ns, "vm-1", pool, "[]");
    machine(ns, "vm-2", pool, "[]");
    machine(ns, "vm-tolerant", pool, "[{key: example.com/drain, operator: Exists}]");
    env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha2
            kind: Machine
            metadata: {name: vm-patient, namespace: %s}
            spec:
              machineClassRef: {name: x3-small}
              machinePoolRef: {name: %s}
              tolerations: [{key: example.com/drain, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]
            """
                .formatted(ns, pool))
        .orThrow();

    LiveBoundMachines live = asWebhook();
    WebhookEnvironment.MACHINES.set(live);
    assertThat(live.boundTo(pool)).hasValueSatisfying(l -> assertThat(l).hasSize(4));
    // a pool name the API server never accepts (a review sent to the webhook port directly)
    // selects nothing, and the warnings stay on (fresh eyes: "a=b" turned them off for good)
    for (String odd : List.of("a=b", "a,b", "a\\b")) {
      assertThat(live.boundTo(odd)).as(odd).hasValueSatisfying(l -> assertThat(l).isEmpty());
    }
    assertThat(live.boundTo(pool)).hasValueSatisfying(l -> assertThat(l).hasSize(4));
    // a write that adds no NoExecute taint reads nothing and warns about nothing
    KubectlResult labelled = env.kubectl("label", POOLS, pool, "touched=yes");
    assertThat(labelled.stderr()).doesNotContain("Warning");

    KubectlResult warned = addTaint(pool, "example.com/drain");
    assertThat(warned.stderr())
        .contains(
            "Warning: 2 bound Machines do not tolerate example.com/drain=v:NoExecute and will be"
                + " evicted",
            "Warning: 1 bound Machine tolerates example.com/drain=v:NoExecute for 30 s only"
                + " (tolerationSeconds) and will be evicted then");

    // started while the API server answers only 500: no warnings yet, and asked again later
    // (fresh eyes: it fell back to v1alpha1, which serves no field selector, for good)
    java.nio.file.Path dir =
        java.nio.file.Files.createDirectories(
            java.nio.file.Path.of("target", "fault-tests", "eviction-warnings-" + pool));
    try (dev.ironcore.maintenance.testkit.faults.FaultProxy proxy =
        dev.ironcore.maintenance.testkit.faults.FaultProxy.start(env.cp.kubeconfig(), dir)) {
      proxy.failWith(500, java.time.Duration.ofMinutes(1));
      Config config = Config.fromKubeconfig(Files.readString(proxy.kubeconfig()));
      config.setImpersonateUsername(SERVICE_ACCOUNT);
      try (KubernetesClient throughProxy = LiveBoundMachines.client(config)) {
        LiveBoundMachines late = new LiveBoundMachines(throughProxy);
        assertThat(late.boundTo(pool)).as("discovery answered 500").isEmpty();
        proxy.stopFailing();
        assertThat(late.boundTo(pool)).hasValueSatisfying(l -> assertThat(l).hasSize(4));
      }
    }

    // a Machine bound to the pool now: the warning on its own write (fresh eyes, twice: a Machine
    // bound by hand to a pool it does not tolerate was admitted silently and gone 3 s later)
    KubectlResult bound =
        env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-late, namespace: %s}
            spec:
              machineClassRef: {name: x3-small}
              machinePoolRef: {name: %s}
            """
                .formatted(ns, pool));
    assertThat(bound.stdout()).contains("created");
    assertThat(bound.stderr())
        .contains(
            "Warning: MachinePool "
                + pool
                + ": this Machine does not tolerate example.com/drain=v:NoExecute and will be"
                + " evicted");
    // bound by an UPDATE (IronCore's scheduler binds so), tolerating for 30 s (the v1alpha1
    // annotation)
    env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha2
            kind: Machine
            metadata: {name: vm-unbound, namespace: %s}
            spec:
              machineClassRef: {name: x3-small}
              tolerations: [{key: example.com/drain, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]
            """
                .formatted(ns))
        .orThrow();
    KubectlResult scheduled =
        env.kubectl(
            "-n",
            ns,
            "patch",
            "machines.v1alpha1.compute.ironcore.dev",
            "vm-unbound",
            "--type=merge",
            "-p",
            "{\"spec\":{\"machinePoolRef\":{\"name\":\"" + pool + "\"}}}");
    // the seconds left since the taint's timeAdded, some gone by now
    assertThat(scheduled.stderr())
        .containsPattern(
            "Warning: MachinePool "
                + pool
                + ": this Machine tolerates example.com/drain=v:NoExecute for [0-9]+ s only"
                + " \\(tolerationSeconds\\) and will be evicted then");
    KubectlResult relabelled =
        env.kubectl(
            "-n", ns, "label", "machines.compute.ironcore.dev", "vm-unbound", "touched=yes");
    assertThat(relabelled.stderr())
        .as("bound before this write: no warning")
        .doesNotContain("Warning");

    env.kubectl("delete", "clusterrolebinding", "ironcore-maintenance-webhook");
    asWebhook.close();
    live = asWebhook();
    WebhookEnvironment.MACHINES.set(live);
    assertThat(live.boundTo(pool)).as("403: not known").isEmpty();
    KubectlResult silent = addTaint(pool, "example.com/other");
    assertThat(silent.stdout()).contains("patched");
    assertThat(silent.stderr()).doesNotContain("Warning");
    assertThat(env.kubectl("get", POOLS, pool, "-o", "jsonpath={.spec.taints[*].key}").stdout())
        .contains("example.com/other");
  }
}

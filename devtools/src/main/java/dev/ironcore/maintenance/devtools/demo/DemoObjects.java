package dev.ironcore.maintenance.devtools.demo;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.devtools.sim.PoolletHeartbeat;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/**
 * The demo's objects, written as a user would write them in YAML: no finalizers of ours, no hook —
 * the webhooks add those. The CAPI Machine carries CAPI's own finalizer, as CAPI sets it. The pool
 * and its Machines go to the IronCore API, the CAPI Machine to the CAPI cluster (namespace {@code
 * ns} in both; the same cluster when there is only one).
 */
final class DemoObjects {
  private DemoObjects() {}

  /** A second demo pool that is never drained: with the poollet heartbeat it stays Ready=True. */
  static final String STANDBY_POOL = "pool-standby";

  /**
   * Creates the demo namespace, MachinePools {@code pool} and {@link #STANDBY_POOL} (both labelled
   * for the poollet simulator's heartbeat), three Machines on {@code pool} and the CAPI Machine.
   *
   * @param capiLabels labels of the CAPI Machine (to match {@code --capi-machine-selector})
   * @param poolletFinalizers put the poollet finalizer on the Machines here (no webhook installed)
   */
  static void create(
      Clusters clusters,
      String ns,
      String pool,
      String capiMachine,
      java.util.Map<String, String> capiLabels,
      boolean poolletFinalizers) {
    String namespace =
        """
            apiVersion: v1
            kind: Namespace
            metadata: {name: %s}
            """
            .formatted(ns);
    String ironcore =
        """
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: MachinePool
            metadata: {name: %2$s, labels: {%5$s: "true"}}
            spec: {providerID: "ironcore://%2$s"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: MachinePool
            metadata: {name: %6$s, labels: {%5$s: "true"}}
            spec: {providerID: "ironcore://%6$s"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-1, namespace: %1$s, finalizers: %4$s}
            spec: {machineClassRef: {name: x3-small}, machinePoolRef: {name: %2$s}, power: "On"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-2, namespace: %1$s, finalizers: %4$s}
            spec: {machineClassRef: {name: x3-small}, machinePoolRef: {name: %2$s}, power: "On"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-tolerant, namespace: %1$s, finalizers: %4$s}
            spec:
              machineClassRef: {name: x3-small}
              machinePoolRef: {name: %2$s}
              power: "On"
              tolerations: [{key: %3$s, operator: Exists}]
            """
            .formatted(
                ns,
                pool,
                Names.MAINTENANCE_TAINT_KEY,
                poolletFinalizers ? "[" + Names.POOLLET_FINALIZER + "]" : "[]",
                PoolletHeartbeat.LABEL,
                STANDBY_POOL);
    String capiYaml =
        """
            apiVersion: cluster.x-k8s.io/v1beta2
            kind: Machine
            metadata: {name: %s, namespace: %s, finalizers: [%s], labels: %s}
            spec: {clusterName: demo}
            """
            .formatted(
                capiMachine,
                ns,
                Names.CAPI_MACHINE_FINALIZER,
                io.fabric8.kubernetes.client.utils.Serialization.asJson(capiLabels));
    apply(clusters.ironcore(), namespace + "---\n" + ironcore);
    apply(clusters.capi(), namespace + "---\n" + capiYaml);
    var capi =
        clusters
            .capi()
            .genericKubernetesResources("cluster.x-k8s.io/v1beta2", "Machine")
            .inNamespace(ns)
            .withName(capiMachine);
    capi.subresource("status")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"status\":{\"nodeRef\":{\"name\":\"" + pool + "\"}}}");
  }

  private static void apply(KubernetesClient client, String yaml) {
    client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).serverSideApply();
  }
}

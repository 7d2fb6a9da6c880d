package dev.ironcore.maintenance.devtools.demo;

import dev.ironcore.maintenance.api.Names;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/**
 * The demo's objects, written as a user would write them in YAML: no finalizers of ours, no hook —
 * the webhooks add those. The CAPI Machine carries CAPI's own finalizer, as CAPI sets it.
 */
final class DemoObjects {
  private DemoObjects() {}

  /**
   * @param capiLabels labels of the CAPI Machine (to match {@code --capi-machine-selector})
   * @param poolletFinalizers put the poollet finalizer on the Machines here (no webhook installed)
   */
  static void create(
      KubernetesClient client,
      String ns,
      String pool,
      String capiMachine,
      java.util.Map<String, String> capiLabels,
      boolean poolletFinalizers) {
    String yaml =
        """
            apiVersion: v1
            kind: Namespace
            metadata: {name: %1$s}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: MachinePool
            metadata: {name: %2$s}
            spec: {providerID: "ironcore://%2$s"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-1, namespace: %1$s, finalizers: %7$s}
            spec: {machineClassRef: {name: x3-small}, machinePoolRef: {name: %2$s}, power: "On"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-2, namespace: %1$s, finalizers: %7$s}
            spec: {machineClassRef: {name: x3-small}, machinePoolRef: {name: %2$s}, power: "On"}
            ---
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: Machine
            metadata: {name: vm-tolerant, namespace: %1$s, finalizers: %7$s}
            spec:
              machineClassRef: {name: x3-small}
              machinePoolRef: {name: %2$s}
              power: "On"
              tolerations: [{key: %4$s, operator: Exists}]
            ---
            apiVersion: cluster.x-k8s.io/v1beta2
            kind: Machine
            metadata: {name: %3$s, namespace: %1$s, finalizers: [%5$s], labels: %6$s}
            spec: {clusterName: demo}
            """
            .formatted(
                ns,
                pool,
                capiMachine,
                Names.MAINTENANCE_TAINT_KEY,
                Names.CAPI_MACHINE_FINALIZER,
                io.fabric8.kubernetes.client.utils.Serialization.asJson(capiLabels),
                poolletFinalizers ? "[" + Names.POOLLET_FINALIZER + "]" : "[]");
    client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).serverSideApply();
    var capi =
        client
            .genericKubernetesResources("cluster.x-k8s.io/v1beta2", "Machine")
            .inNamespace(ns)
            .withName(capiMachine);
    capi.subresource("status")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"status\":{\"nodeRef\":{\"name\":\"" + pool + "\"}}}");
  }
}

package dev.ironcore.maintenance.controller.e2e;

import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.RenderedManifests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Installs our CRDs (manifests/crds) and the local CAPI one (manifests/capi-local) into a control
 * plane of a test's own, each cut to one served and stored version where asked (no conversion
 * webhook then): an API server as IronCore ships it (v1alpha1 only), or an older Cluster API
 * (v1beta1 only).
 */
final class SingleVersionCrds {
  private SingleVersionCrds() {}

  /**
   * @param computeVersion the one version of compute.ironcore.dev to keep, or null for all
   * @param capiVersion the one version of cluster.x-k8s.io to keep, or null for all
   */
  @SuppressWarnings("unchecked")
  static void install(LocalControlPlane cp, String computeVersion, String capiVersion) {
    List<GenericKubernetesResource> crds = new ArrayList<>();
    List<GenericKubernetesResource> compute =
        RenderedManifests.render(cp.kubectlTool(), ManifestPaths.overlay("crds"));
    List<GenericKubernetesResource> capi =
        RenderedManifests.render(cp.kubectlTool(), ManifestPaths.overlay("capi-local"));
    for (var cut :
        List.of(
            Map.entry(compute, String.valueOf(computeVersion)),
            Map.entry(capi, String.valueOf(capiVersion)))) {
      if ("null".equals(cut.getValue())) {
        continue;
      }
      for (GenericKubernetesResource crd : cut.getKey()) {
        Map<String, Object> spec = (Map<String, Object>) crd.getAdditionalProperties().get("spec");
        spec.remove("conversion");
        List<Map<String, Object>> versions = (List<Map<String, Object>>) spec.get("versions");
        versions.removeIf(v -> !cut.getValue().equals(v.get("name")));
        versions.get(0).put("storage", true);
      }
    }
    crds.addAll(compute);
    crds.addAll(capi);
    crds.forEach(c -> cp.client().resource(c).serverSideApply());
    cp.kubectl(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/machines.compute.ironcore.dev",
            "crd/machinepools.compute.ironcore.dev",
            "crd/machines.cluster.x-k8s.io")
        .orThrow();
  }
}

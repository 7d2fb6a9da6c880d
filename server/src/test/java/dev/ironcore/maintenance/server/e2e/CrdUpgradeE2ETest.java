package dev.ironcore.maintenance.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.RenderedManifests;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import dev.ironcore.maintenance.testkit.WebhookInstaller;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrading a cluster whose CRDs served only v1alpha1 (IronCore's shape, as before this product had
 * v1alpha2): objects stored then, one with {@code tolerationSeconds} kept as an unknown field,
 * read, list and update in both versions once {@code manifests/local} (v1alpha2 storage, conversion
 * webhook) is applied. A control plane of its own: the shared one must not see its CRDs change.
 */
class CrdUpgradeE2ETest {
  private static final String V1 = "machines.v1alpha1.compute.ironcore.dev";
  private static final String V2 = "machines.v1alpha2.compute.ironcore.dev";

  @TempDir Path dir;

  /** {@code manifests/crds} as it was before v1alpha2: v1alpha1 only, stored, no conversion. */
  @SuppressWarnings("unchecked")
  private static List<GenericKubernetesResource> v1alpha1OnlyCrds(LocalControlPlane cp) {
    List<GenericKubernetesResource> crds =
        RenderedManifests.render(cp.kubectlTool(), ManifestPaths.overlay("crds"));
    for (GenericKubernetesResource crd : crds) {
      Map<String, Object> spec = (Map<String, Object>) crd.getAdditionalProperties().get("spec");
      spec.remove("conversion");
      List<Map<String, Object>> versions = (List<Map<String, Object>>) spec.get("versions");
      versions.removeIf(v -> !"v1alpha1".equals(v.get("name")));
      versions.get(0).put("storage", true);
    }
    return crds;
  }

  @Test
  void objectsStoredBeforeV1alpha2ReadListAndUpdateInBothVersions() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      for (GenericKubernetesResource crd : v1alpha1OnlyCrds(cp)) {
        cp.client().resource(crd).serverSideApply();
      }
      cp.kubectl(
              "wait",
              "--for=condition=Established",
              "--timeout=60s",
              "crd/machines.compute.ironcore.dev",
              "crd/machinepools.compute.ironcore.dev")
          .orThrow();
      cp.kubectl("create", "namespace", "old").orThrow();
      cp.kubectlTool()
          .runWithInput(
              """
              apiVersion: compute.ironcore.dev/v1alpha1
              kind: Machine
              metadata: {name: before, namespace: old, labels: {era: v1alpha1}}
              spec:
                machineClassRef: {name: small}
                somethingIronCoreHas: {a: 1}
                tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]
              """,
              "apply",
              "-f",
              "-")
          .orThrow();

      Path certsDir = Files.createDirectories(dir.resolve("certs"));
      TestCertificates certs = TestCertificates.create(certsDir);
      try (WebhookServer server =
          new WebhookServer(
              WebhookServerConfig.of(certs.certFile(), certs.keyFile())
                  .withBindAddress("127.0.0.1"))) {
        int port = server.start(0);
        WebhookInstaller.install(
            cp,
            ManifestPaths.overlay("local"),
            "https://127.0.0.1:" + port,
            certs.ca().certificatePem());
        await("conversion served")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> cp.kubectl("get", V2, "-n", "old", "before", "-o", "name").ok());

        JsonNode before = json(cp.kubectl("get", V2, "-n", "old", "before", "-o", "json").stdout());
        assertThat(before.get("apiVersion").asText()).isEqualTo("compute.ironcore.dev/v1alpha2");
        assertThat(before.at("/spec/tolerations/0/tolerationSeconds").asInt()).isEqualTo(30);
        assertThat(before.at("/spec/somethingIronCoreHas/a").asInt()).isEqualTo(1);
        assertThat(before.at("/metadata/labels/era").asText()).isEqualTo("v1alpha1");
        assertThat(before.at("/metadata/annotations").has(ConversionE2ETest.ANNOTATION)).isFalse();

        cp.kubectlTool()
            .runWithInput(
                """
                apiVersion: compute.ironcore.dev/v1alpha2
                kind: Machine
                metadata: {name: after, namespace: old}
                spec:
                  machineClassRef: {name: small}
                  tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]
                """,
                "apply",
                "-f",
                "-")
            .orThrow();

        // a LIST over one object stored as v1alpha1 and one stored as v1alpha2, in both versions
        for (String resource : List.of(V1, V2)) {
          JsonNode list = json(cp.kubectl("get", resource, "-n", "old", "-o", "json").stdout());
          assertThat(list.get("items")).hasSize(2);
          String version = resource.split("\\.")[1];
          list.get("items")
              .forEach(
                  i ->
                      assertThat(i.get("apiVersion").asText())
                          .isEqualTo("compute.ironcore.dev/" + version));
        }
        JsonNode v1After = json(cp.kubectl("get", V1, "-n", "old", "after", "-o", "json").stdout());
        assertThat(v1After.at("/spec/tolerations/0").has("tolerationSeconds")).isFalse();
        assertThat(v1After.at("/metadata/annotations").get(ConversionE2ETest.ANNOTATION).asText())
            .contains("\"tolerationSeconds\":60");

        // a v1alpha1 update of the old object stores it as v1alpha2, nothing lost
        cp.kubectl("label", V1, "-n", "old", "before", "touched=yes").orThrow();
        JsonNode touched =
            json(cp.kubectl("get", V2, "-n", "old", "before", "-o", "json").stdout());
        assertThat(touched.at("/spec/tolerations/0/tolerationSeconds").asInt()).isEqualTo(30);
        assertThat(touched.at("/metadata/labels/touched").asText()).isEqualTo("yes");
        CustomResourceDefinition crd =
            cp.client()
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("machines.compute.ironcore.dev")
                .get();
        assertThat(crd.getStatus().getStoredVersions()).contains("v1alpha1", "v1alpha2");
      }
    }
  }

  private static JsonNode json(String text) {
    return WebhookEnvironment.json(text);
  }
}

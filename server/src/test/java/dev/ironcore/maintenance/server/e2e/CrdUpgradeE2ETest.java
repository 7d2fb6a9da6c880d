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
  private static final String POOLS_V1 = "machinepools.v1alpha1.compute.ironcore.dev";
  private static final String POOLS_V2 = "machinepools.v1alpha2.compute.ironcore.dev";

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
      installV1alpha1OnlyCrds(cp);
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

      try (WebhookServer server = upgrade(cp, dir, "old", "before")) {

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

  /**
   * A tester's repro: Machines (and a pool) stored while the CRDs served only v1alpha1, with an
   * annotation {@code maintenance.ironcore.dev/v1alpha2-fields} that is not what down-conversion
   * writes ({@code 'not json'}). Once the CRDs store v1alpha2 the conversion failed on it: every
   * v1alpha2 list of Machines failed (so the controller's informer never synced), and the object
   * could be neither repaired nor deleted in either version. Now it converts (the value stays
   * visible in both versions), and its owner can label it, remove the annotation, delete it and
   * remove its finalizers with kubectl in either version; a v1alpha1 write that brings a new such
   * value is refused by the validating webhook.
   */
  @Test
  void anUnreadableAnnotationStoredBeforeTheUpgradeBreaksNothingAndCanBeRemoved() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      installV1alpha1OnlyCrds(cp);
      String stored =
          """
          apiVersion: compute.ironcore.dev/v1alpha1
          kind: Machine
          metadata:
            name: %s
            namespace: default
            finalizers: [e2e.ironcore.dev/hold]
            annotations: {maintenance.ironcore.dev/v1alpha2-fields: '%s', note: kept}
          spec:
            machineClassRef: {name: small}
            tolerations: [{key: k, operator: Exists, effect: NoExecute}]
          """;
      for (String name : List.of("old-ann", "old-ann-v1", "old-ann-v2")) {
        cp.kubectlTool()
            .runWithInput(stored.formatted(name, "not json"), "apply", "-f", "-")
            .orThrow();
      }
      cp.kubectlTool()
          .runWithInput(
              """
              apiVersion: compute.ironcore.dev/v1alpha1
              kind: MachinePool
              metadata:
                name: old-pool
                annotations: {maintenance.ironcore.dev/v1alpha2-fields: '{"taints":"x"}'}
              spec:
                providerID: x
                taints: [{key: a, effect: NoExecute}]
              """,
              "apply",
              "-f",
              "-")
          .orThrow();

      try (WebhookServer server = upgrade(cp, dir, "default", "old-ann")) {

        // every list in v1alpha2 (what the controller's informer sends) works, the value visible
        JsonNode list = json(cp.kubectl("get", V2, "-A", "-o", "json").orThrow().stdout());
        assertThat(list.get("items")).hasSize(3);
        for (JsonNode item : list.get("items")) {
          assertThat(item.get("apiVersion").asText()).isEqualTo("compute.ironcore.dev/v1alpha2");
          assertThat(item.at("/metadata/annotations").get(ConversionE2ETest.ANNOTATION).asText())
              .isEqualTo("not json");
          assertThat(item.at("/metadata/annotations/note").asText()).isEqualTo("kept");
          assertThat(item.at("/spec/tolerations/0").has("tolerationSeconds")).isFalse();
        }
        JsonNode v1 =
            json(cp.kubectl("get", V1, "-n", "default", "old-ann", "-o", "json").stdout());
        assertThat(v1.at("/metadata/annotations").get(ConversionE2ETest.ANNOTATION).asText())
            .isEqualTo("not json");
        JsonNode pool = json(cp.kubectl("get", POOLS_V2, "old-pool", "-o", "json").stdout());
        assertThat(pool.at("/metadata/annotations").get(ConversionE2ETest.ANNOTATION).asText())
            .isEqualTo("{\"taints\":\"x\"}");

        // updates that keep the value pass in both versions (the validating webhook sees it
        // unchanged), and so does the pool's mutating webhook (v1alpha2, through conversion)
        cp.kubectl("label", V1, "-n", "default", "old-ann", "by=v1alpha1").orThrow();
        cp.kubectl("label", V2, "-n", "default", "old-ann", "by2=v1alpha2").orThrow();
        cp.kubectl("label", POOLS_V1, "old-pool", "by=v1alpha1").orThrow();
        cp.kubectl("label", POOLS_V2, "old-pool", "by2=v1alpha2").orThrow();

        // a v1alpha1 write that brings a new unreadable value is refused
        var changed =
            cp.kubectl(
                "annotate",
                "--overwrite",
                V1,
                "-n",
                "default",
                "old-ann",
                ConversionE2ETest.ANNOTATION + "=[]");
        assertThat(changed.ok()).as(changed.stdout()).isFalse();
        assertThat(changed.stderr())
            .contains(
                "metadata.annotations[maintenance.ironcore.dev/v1alpha2-fields]: Invalid value:"
                    + " \"[]\": not what a v1alpha1 read shows there (must hold a JSON object)");
        var created =
            cp.kubectlTool().runWithInput(stored.formatted("new-ann", "null"), "apply", "-f", "-");
        assertThat(created.ok()).as(created.stdout()).isFalse();
        assertThat(created.stderr()).contains("Invalid value: \"null\": not what a v1alpha1 read");

        // the owner removes the annotation, in either version
        cp.kubectl("annotate", V1, "-n", "default", "old-ann", ConversionE2ETest.ANNOTATION + "-")
            .orThrow();
        cp.kubectl("annotate", POOLS_V2, "old-pool", ConversionE2ETest.ANNOTATION + "-").orThrow();
        JsonNode repaired =
            json(cp.kubectl("get", V2, "-n", "default", "old-ann", "-o", "json").stdout());
        assertThat(repaired.at("/metadata/annotations").has(ConversionE2ETest.ANNOTATION))
            .isFalse();
        assertThat(repaired.at("/metadata/labels/by").asText()).isEqualTo("v1alpha1");
        assertThat(repaired.at("/metadata/labels/by2").asText()).isEqualTo("v1alpha2");
        assertThat(
                json(cp.kubectl("get", POOLS_V1, "old-pool", "-o", "json").stdout())
                    .at("/metadata/annotations")
                    .has(ConversionE2ETest.ANNOTATION))
            .isFalse();

        // deleted in one version, released (finalizer removed) in the other, value in place
        cp.kubectl("delete", V1, "-n", "default", "old-ann-v1", "--wait=false").orThrow();
        cp.kubectl("delete", V2, "-n", "default", "old-ann-v2", "--wait=false").orThrow();
        String release = "{\"metadata\":{\"finalizers\":null}}";
        cp.kubectl("patch", V2, "-n", "default", "old-ann-v1", "--type=merge", "-p", release)
            .orThrow();
        cp.kubectl("patch", V1, "-n", "default", "old-ann-v2", "--type=merge", "-p", release)
            .orThrow();
        cp.kubectl("delete", V2, "-n", "default", "old-ann", "--wait=false").orThrow();
        cp.kubectl("patch", V1, "-n", "default", "old-ann", "--type=merge", "-p", release)
            .orThrow();
        await("all gone")
            .atMost(Duration.ofSeconds(30))
            .until(() -> cp.kubectl("get", V2, "-A", "-o", "name").orThrow().stdout().isBlank());
      }
    }
  }

  private static JsonNode json(String text) {
    return WebhookEnvironment.json(text);
  }

  /**
   * The upgrade: our webhook server started and the real CRDs and webhooks ({@code
   * manifests/local}) installed over the v1alpha1-only ones; returns once Machine {@code
   * namespace/name} reads in v1alpha2 (the conversion served).
   */
  private static WebhookServer upgrade(
      LocalControlPlane cp, Path dir, String namespace, String name) throws Exception {
    TestCertificates certs = TestCertificates.create(Files.createDirectories(dir.resolve("certs")));
    WebhookServer server =
        new WebhookServer(
            WebhookServerConfig.of(certs.certFile(), certs.keyFile()).withBindAddress("127.0.0.1"));
    try {
      int port = server.start(0);
      WebhookInstaller.install(
          cp,
          ManifestPaths.overlay("local"),
          "https://127.0.0.1:" + port,
          certs.ca().certificatePem());
      await("conversion served")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> cp.kubectl("get", V2, "-n", namespace, name, "-o", "name").ok());
      return server;
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  /** The install before the upgrade: CRDs serving and storing only v1alpha1, no webhooks. */
  private static void installV1alpha1OnlyCrds(LocalControlPlane cp) throws Exception {
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
  }
}

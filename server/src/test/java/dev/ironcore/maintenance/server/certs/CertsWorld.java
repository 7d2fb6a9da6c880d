package dev.ironcore.maintenance.server.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.certs.Pem;
import dev.ironcore.maintenance.certs.install.CertsMain;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.RenderedManifests;
import dev.ironcore.maintenance.testkit.TestCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test objects for the certs CLI in a real API server: webhook configurations named {@code id}
 * (copies of {@code manifests/webhooks}, calling {@code baseUrl}, with an objectSelector {@code
 * certs-e2e=<id>} so only this test's objects reach them and no caBundle), and two CRDs of our own:
 * {@code <id>conv} with webhook conversion and {@code <id>none} without.
 *
 * <p>With {@code sharedCrds} also the CRDs of {@code manifests/local} (machines and machinepools,
 * shared by every test of the JVM), their conversion webhook (where the CRDs have one) pointed at
 * {@code baseUrl} with no caBundle, to be set by the CLI under test: the server at {@code baseUrl}
 * must then serve until the JVM exits, as later tests convert through it.
 */
final class CertsWorld {
  static final String LABEL = "certs-e2e";
  static final String GROUP = "certs-e2e.ironcore.dev";

  final TestCluster cp;
  final String id;

  final boolean sharedCrds;

  private CertsWorld(TestCluster cp, String id, boolean sharedCrds) {
    this.cp = cp;
    this.id = id;
    this.sharedCrds = sharedCrds;
  }

  /** The shared CRDs of {@code manifests/local} whose conversion caBundle the CLI manages. */
  static final List<String> SHARED_CRDS =
      List.of("machines.compute.ironcore.dev", "machinepools.compute.ironcore.dev");

  /** Installs the objects; {@code baseUrl} e.g. {@code https://127.0.0.1:40123}. */
  static CertsWorld install(TestCluster cp, String id, String baseUrl, boolean sharedCrds) {
    CertsWorld w = new CertsWorld(cp, id, sharedCrds);
    List<GenericKubernetesResource> objects =
        RenderedManifests.render(cp.kubectlTool(), ManifestPaths.overlay("local"));
    RenderedManifests.pointWebhooksAt(objects, baseUrl, "");
    List<String> crds = new ArrayList<>();
    for (GenericKubernetesResource o : objects) {
      switch (o.getKind()) {
        case "Namespace" -> apply(cp, o);
        case "CustomResourceDefinition" -> {
          if (sharedCrds) {
            apply(cp, o);
            crds.add(o.getMetadata().getName());
          }
        }
        case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration" -> {
          o.getMetadata().setName(id);
          for (Object hook : (List<?>) o.getAdditionalProperties().get("webhooks")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> h = (Map<String, Object>) hook;
            h.put("objectSelector", Map.of("matchLabels", Map.of(LABEL, id)));
            @SuppressWarnings("unchecked")
            Map<String, Object> cc = (Map<String, Object>) h.get("clientConfig");
            cc.remove("caBundle");
          }
          apply(cp, o);
        }
        default -> {}
      }
    }
    apply(cp, crd(w.conversionCrdPlural(), baseUrl));
    apply(cp, crd(w.plainCrdPlural(), null));
    crds.add(w.conversionCrd());
    crds.add(w.plainCrd());
    crds.forEach(
        name ->
            await("CRD " + name + " established")
                .atMost(Duration.ofSeconds(60))
                .until(
                    () -> {
                      CustomResourceDefinition c =
                          cp.client()
                              .apiextensions()
                              .v1()
                              .customResourceDefinitions()
                              .withName(name)
                              .get();
                      return c != null
                          && c.getStatus() != null
                          && c.getStatus().getConditions().stream()
                              .anyMatch(
                                  x ->
                                      x.getType().equals("Established")
                                          && x.getStatus().equals("True"));
                    }));
    return w;
  }

  String conversionCrdPlural() {
    return (id + "conv").replace("-", "");
  }

  String plainCrdPlural() {
    return (id + "none").replace("-", "");
  }

  String conversionCrd() {
    return conversionCrdPlural() + "." + GROUP;
  }

  String plainCrd() {
    return plainCrdPlural() + "." + GROUP;
  }

  /** A CRD {@code <plural>.certs-e2e.ironcore.dev}, with webhook conversion when url is set. */
  private static GenericKubernetesResource crd(String plural, String baseUrl) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("group", GROUP);
    spec.put("scope", "Namespaced");
    spec.put(
        "names",
        Map.of(
            "plural",
            plural,
            "singular",
            plural.substring(0, plural.length() - 1),
            "kind",
            "K" + plural,
            "listKind",
            "K" + plural + "List"));
    spec.put(
        "versions",
        List.of(
            Map.of(
                "name",
                "v1",
                "served",
                true,
                "storage",
                true,
                "schema",
                Map.of(
                    "openAPIV3Schema",
                    Map.of("type", "object", "x-kubernetes-preserve-unknown-fields", true)))));
    if (baseUrl != null) {
      spec.put(
          "conversion",
          Map.of(
              "strategy",
              "Webhook",
              "webhook",
              Map.of(
                  "conversionReviewVersions",
                  List.of("v1"),
                  "clientConfig",
                  Map.of("url", baseUrl + "/convert"))));
    }
    GenericKubernetesResource o = new GenericKubernetesResource();
    o.setApiVersion("apiextensions.k8s.io/v1");
    o.setKind("CustomResourceDefinition");
    o.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(plural + "." + GROUP)
            .build());
    o.setAdditionalProperty("spec", spec);
    return o;
  }

  private static void apply(TestCluster cp, GenericKubernetesResource o) {
    cp.client().resource(o).fieldManager("certs-e2e").forceConflicts().serverSideApply();
  }

  /** Every caBundle (base64) of both configurations and the conversion CRD, plus the plain CRD. */
  Map<String, String> caBundles() {
    Map<String, String> out = new LinkedHashMap<>();
    MutatingWebhookConfiguration m =
        cp.client().admissionRegistration().v1().mutatingWebhookConfigurations().withName(id).get();
    m.getWebhooks()
        .forEach(h -> out.put("mutating/" + h.getName(), h.getClientConfig().getCaBundle()));
    ValidatingWebhookConfiguration v =
        cp.client()
            .admissionRegistration()
            .v1()
            .validatingWebhookConfigurations()
            .withName(id)
            .get();
    v.getWebhooks()
        .forEach(h -> out.put("validating/" + h.getName(), h.getClientConfig().getCaBundle()));
    CustomResourceDefinition conv =
        cp.client()
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(conversionCrd())
            .get();
    out.put(
        "conversion", conv.getSpec().getConversion().getWebhook().getClientConfig().getCaBundle());
    CustomResourceDefinition plain =
        cp.client().apiextensions().v1().customResourceDefinitions().withName(plainCrd()).get();
    out.put("plain", String.valueOf(plain.getSpec().getConversion()));
    if (sharedCrds) {
      for (String name : SHARED_CRDS) {
        var c = cp.client().apiextensions().v1().customResourceDefinitions().withName(name).get();
        var conversion = c.getSpec().getConversion();
        if (conversion != null && "Webhook".equals(conversion.getStrategy())) {
          out.put(name, conversion.getWebhook().getClientConfig().getCaBundle());
        }
      }
    }
    return out;
  }

  /**
   * Where the API server sends the shared CRDs' conversion calls: CRD name to {@code
   * clientConfig.url}, or to {@code "strategy <S>"} for a CRD without webhook conversion.
   */
  Map<String, String> sharedConversionUrls() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : SHARED_CRDS) {
      var c = cp.client().apiextensions().v1().customResourceDefinitions().withName(name).get();
      var conversion = c.getSpec().getConversion();
      out.put(
          name,
          conversion != null && "Webhook".equals(conversion.getStrategy())
              ? conversion.getWebhook().getClientConfig().getUrl()
              : "strategy " + (conversion == null ? null : conversion.getStrategy()));
    }
    return out;
  }

  /**
   * Asserts every caBundle (both webhook configurations, the conversion CRD and, with shared CRDs,
   * each of {@link #SHARED_CRDS}, which must have webhook conversion) is exactly {@code ca}, and
   * the CRD without webhook conversion got none.
   */
  void assertEveryCaBundleIs(X509Certificate ca) {
    String expected =
        Base64.getEncoder().encodeToString(Pem.encode(ca).getBytes(StandardCharsets.UTF_8));
    Map<String, String> bundles = caBundles();
    if (sharedCrds) {
      assertThat(bundles)
          .as("shared CRDs with webhook conversion")
          .containsKeys(SHARED_CRDS.toArray(String[]::new));
    }
    bundles.forEach(
        (slot, bundle) -> {
          if (!slot.equals("plain")) {
            assertThat(bundle).as(slot).isEqualTo(expected);
          } else {
            assertThat(bundle)
                .as("CRD without webhook conversion untouched")
                .doesNotContain("caBundle");
          }
        });
  }

  /** Flags naming this world's objects, for {@link CertsMain}. */
  List<String> flags() {
    String crds = conversionCrd() + "," + plainCrd();
    if (sharedCrds) {
      crds += "," + String.join(",", SHARED_CRDS);
    }
    return List.of(
        "--kubeconfig=" + cp.kubeconfig(), "--webhook-configuration=" + id, "--crds=" + crds);
  }

  /** Result of one in-process run of the CLI. */
  record Run(int exitCode, String out, String err) {}

  /** Runs {@link CertsMain} in this JVM. */
  static Run run(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        CertsMain.run(
            args.toArray(String[]::new),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    Run r =
        new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    System.out.println(
        "certs " + String.join(" ", args) + " -> " + code + "\n" + r.out() + r.err());
    return r;
  }
}

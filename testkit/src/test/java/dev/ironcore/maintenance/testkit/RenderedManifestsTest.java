package dev.ironcore.maintenance.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RenderedManifestsTest {

  private static final String YAML =
      """
      apiVersion: v1
      kind: Namespace
      metadata:
        name: a
      ---
      # comment only
      ---
      apiVersion: admissionregistration.k8s.io/v1
      kind: MutatingWebhookConfiguration
      metadata:
        name: m
      webhooks:
      - name: one.example.dev
        clientConfig:
          url: https://127.0.0.1:9443/mutate/one
      - name: two.example.dev
        clientConfig:
          service:
            name: svc
            namespace: ns
            port: 443
            path: /mutate/two
      ---
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: things.example.dev
      spec:
        conversion:
          strategy: Webhook
          webhook:
            conversionReviewVersions: [v1]
            clientConfig:
              service: {name: svc, namespace: ns, path: /convert}
      """;

  @Test
  void parsesDocumentsAndSkipsEmptyOnes() {
    List<GenericKubernetesResource> objs = RenderedManifests.parse(YAML);
    assertThat(objs)
        .extracting(GenericKubernetesResource::getKind)
        .containsExactly("Namespace", "MutatingWebhookConfiguration", "CustomResourceDefinition");
  }

  @Test
  @SuppressWarnings("unchecked")
  void pointsEveryWebhookAtBaseUrlKeepingPaths() {
    List<GenericKubernetesResource> objs = RenderedManifests.parse(YAML);
    RenderedManifests.pointWebhooksAt(objs, "https://127.0.0.1:45123/", "PEM");
    String b64 = Base64.getEncoder().encodeToString("PEM".getBytes(StandardCharsets.UTF_8));

    List<Map<String, Object>> hooks =
        (List<Map<String, Object>>) objs.get(1).getAdditionalProperties().get("webhooks");
    assertThat(hooks.get(0).get("clientConfig"))
        .isEqualTo(Map.of("url", "https://127.0.0.1:45123/mutate/one", "caBundle", b64));
    assertThat(hooks.get(1).get("clientConfig"))
        .isEqualTo(Map.of("url", "https://127.0.0.1:45123/mutate/two", "caBundle", b64));

    Map<String, Object> spec =
        (Map<String, Object>) objs.get(2).getAdditionalProperties().get("spec");
    Map<String, Object> webhook =
        (Map<String, Object>) ((Map<String, Object>) spec.get("conversion")).get("webhook");
    assertThat(webhook.get("clientConfig"))
        .isEqualTo(Map.of("url", "https://127.0.0.1:45123/convert", "caBundle", b64));
    assertThat(webhook.get("conversionReviewVersions")).isEqualTo(List.of("v1"));
  }

  @Test
  void onlyForApiGroupKeepsThatGroupsCrdsAndWebhooksAndEverythingElse() {
    List<GenericKubernetesResource> objs =
        RenderedManifests.parse(
            """
            apiVersion: v1
            kind: Namespace
            metadata: {name: a}
            ---
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata: {name: machines.cluster.x-k8s.io}
            spec: {group: cluster.x-k8s.io}
            ---
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata: {name: machines.compute.ironcore.dev}
            spec: {group: compute.ironcore.dev}
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: MutatingWebhookConfiguration
            metadata: {name: m}
            webhooks:
            - name: capi.example.dev
              rules: [{apiGroups: [cluster.x-k8s.io], resources: [machines]}]
            - name: compute.example.dev
              rules: [{apiGroups: [compute.ironcore.dev], resources: [machines]}]
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingWebhookConfiguration
            metadata: {name: v}
            webhooks:
            - name: compute.validate.example.dev
              rules: [{apiGroups: [compute.ironcore.dev], resources: [machinepools]}]
            """);

    List<GenericKubernetesResource> capi =
        RenderedManifests.onlyForApiGroup(
            RenderedManifests.parse(serialize(objs)), "cluster.x-k8s.io");
    assertThat(capi)
        .extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
        .containsExactly(
            "Namespace/a",
            "CustomResourceDefinition/machines.cluster.x-k8s.io",
            "MutatingWebhookConfiguration/m");
    assertThat(webhookNames(capi.get(2))).containsExactly("capi.example.dev");

    List<GenericKubernetesResource> ironcore =
        RenderedManifests.onlyForApiGroup(objs, "compute.ironcore.dev");
    assertThat(ironcore)
        .extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
        .containsExactly(
            "Namespace/a",
            "CustomResourceDefinition/machines.compute.ironcore.dev",
            "MutatingWebhookConfiguration/m",
            "ValidatingWebhookConfiguration/v");
    assertThat(webhookNames(ironcore.get(2))).containsExactly("compute.example.dev");
  }

  private static String serialize(List<GenericKubernetesResource> objs) {
    return objs.stream()
        .map(io.fabric8.kubernetes.client.utils.Serialization::asYaml)
        .collect(java.util.stream.Collectors.joining("---\n"));
  }

  private static List<Object> webhookNames(GenericKubernetesResource config) {
    return ((List<?>) config.getAdditionalProperties().get("webhooks"))
        .stream().map(h -> ((Map<?, ?>) h).get("name")).map(Object.class::cast).toList();
  }
}

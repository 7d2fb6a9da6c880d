package dev.ironcore.maintenance.testkit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The objects of a rendered kustomize overlay, as generic (map-backed) resources so that no field
 * is lost, plus the rewrite that points webhooks at a local server.
 */
public final class RenderedManifests {

  private static final Pattern DOC_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private RenderedManifests() {}

  /**
   * Runs {@code kubectl kustomize overlayDir} and parses the output.
   *
   * @throws IllegalStateException if kustomize fails (message has its stderr)
   */
  public static List<GenericKubernetesResource> render(Kubectl kubectl, Path overlayDir) {
    KubectlResult r = kubectl.run("kustomize", overlayDir.toAbsolutePath().toString()).orThrow();
    return parse(r.stdout());
  }

  /** Parses multi-document YAML; empty documents are skipped. */
  public static List<GenericKubernetesResource> parse(String yaml) {
    List<GenericKubernetesResource> out = new ArrayList<>();
    for (String doc : DOC_SEPARATOR.split(yaml)) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) {
        continue;
      }
      out.add(SERIALIZATION.unmarshal(doc, GenericKubernetesResource.class));
    }
    return out;
  }

  /**
   * Points every webhook of every Mutating/ValidatingWebhookConfiguration, and the conversion
   * webhook of every CustomResourceDefinition that has one, at {@code baseUrl}: the new {@code
   * clientConfig.url} is {@code baseUrl} + the old path (from {@code url} or {@code service.path}),
   * {@code service} is removed and {@code caBundle} becomes base64 of {@code caBundlePem}. Objects
   * are changed in place.
   *
   * @param baseUrl scheme, host and port, e.g. {@code https://127.0.0.1:45123} (a trailing slash is
   *     ignored)
   * @param caBundlePem PEM of the CA that signed the webhook server's certificate
   */
  public static void pointWebhooksAt(
      List<GenericKubernetesResource> objects, String baseUrl, String caBundlePem) {
    String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    String caBundle =
        Base64.getEncoder().encodeToString(caBundlePem.getBytes(StandardCharsets.UTF_8));
    for (GenericKubernetesResource o : objects) {
      Map<String, Object> props = o.getAdditionalProperties();
      switch (o.getKind()) {
        case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration" -> {
          Object hooks = props.get("webhooks");
          if (hooks instanceof List<?> list) {
            for (Object hook : list) {
              rewrite(child(hook, "clientConfig"), base, caBundle);
            }
          }
        }
        case "CustomResourceDefinition" ->
            rewrite(
                child(child(child(props.get("spec"), "conversion"), "webhook"), "clientConfig"),
                base,
                caBundle);
        default -> {}
      }
    }
  }

  /**
   * What a cluster that stores only the resources of {@code apiGroup} needs from {@code objects}:
   * CustomResourceDefinitions of other groups are dropped, and so is every webhook whose rules name
   * no resource of {@code apiGroup} (a webhook configuration left without webhooks is dropped
   * whole). Everything else (namespaces, RBAC, ...) is kept. Used when CAPI Machines and IronCore
   * objects live in two API servers: each registers only the webhooks of what it stores.
   *
   * @param apiGroup e.g. {@code cluster.x-k8s.io} or {@code compute.ironcore.dev}
   * @return the kept objects in their order (webhook configurations are changed in place)
   */
  public static List<GenericKubernetesResource> onlyForApiGroup(
      List<GenericKubernetesResource> objects, String apiGroup) {
    List<GenericKubernetesResource> kept = new ArrayList<>();
    for (GenericKubernetesResource o : objects) {
      Map<String, Object> props = o.getAdditionalProperties();
      switch (o.getKind()) {
        case "CustomResourceDefinition" -> {
          if (apiGroup.equals(child(props.get("spec"), "group"))) {
            kept.add(o);
          }
        }
        case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration" -> {
          List<Object> hooks = new ArrayList<>();
          if (props.get("webhooks") instanceof List<?> list) {
            list.stream().filter(h -> namesGroup(h, apiGroup)).forEach(hooks::add);
          }
          if (!hooks.isEmpty()) {
            props.put("webhooks", hooks);
            kept.add(o);
          }
        }
        default -> kept.add(o);
      }
    }
    return kept;
  }

  private static boolean namesGroup(Object webhook, String apiGroup) {
    return child(webhook, "rules") instanceof List<?> rules
        && rules.stream()
            .anyMatch(
                r -> child(r, "apiGroups") instanceof List<?> groups && groups.contains(apiGroup));
  }

  @SuppressWarnings("unchecked")
  private static void rewrite(Object clientConfig, String base, String caBundle) {
    if (!(clientConfig instanceof Map<?, ?>)) {
      return;
    }
    Map<String, Object> cc = (Map<String, Object>) clientConfig;
    String path = null;
    if (cc.get("service") instanceof Map<?, ?> svc && svc.get("path") instanceof String p) {
      path = p;
    } else if (cc.get("url") instanceof String url) {
      URI u = URI.create(url);
      path = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    }
    if (path == null || path.isEmpty()) {
      path = "/";
    } else if (!path.startsWith("/")) {
      path = "/" + path;
    }
    cc.remove("service");
    cc.put("url", base + path);
    cc.put("caBundle", caBundle);
  }

  private static Object child(Object map, String key) {
    return map instanceof Map<?, ?> m ? m.get(key) : null;
  }
}

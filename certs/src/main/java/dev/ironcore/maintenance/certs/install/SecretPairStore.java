package dev.ironcore.maintenance.certs.install;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The serving pair in a {@code kubernetes.io/tls} Secret (keys {@code tls.crt}, {@code tls.key}),
 * as the webhook Deployment mounts it. Writes are updates with the read resourceVersion (a
 * concurrent change fails the write instead of being overwritten); a missing Secret is created.
 */
public final class SecretPairStore implements ServingPairStore {
  /** The Secret type Kubernetes defines for TLS pairs. */
  public static final String TLS_TYPE = "kubernetes.io/tls";

  private final KubernetesClient client;
  private final String namespace;
  private final String name;

  /**
   * @param client cluster access
   * @param namespace namespace of the Secret
   * @param name name of the Secret
   */
  public SecretPairStore(KubernetesClient client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  @Override
  public Optional<StoredPair> read() {
    Secret s = get();
    if (s == null) {
      if (ClusterCall.run(
              client,
              "get Namespace " + namespace,
              () -> client.namespaces().withName(namespace).get())
          == null) {
        throw new Refusal(
            "namespace "
                + namespace
                + " not found (for "
                + describe()
                + "); install first: kubectl apply -k manifests/default");
      }
      return Optional.empty();
    }
    if (!TLS_TYPE.equals(s.getType())) {
      throw new Refusal(
          describe()
              + " has type "
              + s.getType()
              + ", not "
              + TLS_TYPE
              + "; delete it or pass another --secret");
    }
    Map<String, String> data = s.getData() == null ? Map.of() : s.getData();
    return Optional.of(new StoredPair(decode(data.get("tls.crt")), decode(data.get("tls.key"))));
  }

  @Override
  public void write(String certificatePem, String privateKeyPem) {
    Secret existing = get();
    Map<String, String> data = new LinkedHashMap<>();
    if (existing != null && existing.getData() != null) {
      data.putAll(existing.getData());
    }
    data.put("tls.crt", encode(certificatePem));
    data.put("tls.key", encode(privateKeyPem));
    if (existing == null) {
      ClusterCall.run(
          client,
          "create " + describe(),
          () ->
              client
                  .resource(
                      new SecretBuilder()
                          .withNewMetadata()
                          .withNamespace(namespace)
                          .withName(name)
                          .addToLabels("app.kubernetes.io/name", "ironcore-maintenance")
                          .addToLabels("app.kubernetes.io/component", "webhook")
                          .endMetadata()
                          .withType(TLS_TYPE)
                          .withData(data)
                          .build())
                  .create());
    } else {
      ClusterCall.run(
          client,
          "update " + describe(),
          () -> client.resource(new SecretBuilder(existing).withData(data).build()).update());
    }
  }

  @Override
  public String describe() {
    return "Secret " + namespace + "/" + name;
  }

  private Secret get() {
    return ClusterCall.run(
        client,
        "get " + describe(),
        () -> client.secrets().inNamespace(namespace).withName(name).get());
  }

  private static String decode(String base64) {
    return base64 == null
        ? null
        : new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  private static String encode(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}

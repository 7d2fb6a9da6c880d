package dev.ironcore.maintenance.testkit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs a kustomize overlay (e.g. {@code manifests/local}) into a cluster with its webhooks
 * pointed at a locally running webhook server.
 *
 * <p>Order: Namespaces, CustomResourceDefinitions (then waits until each is Established),
 * everything else, webhook configurations last. Each object is server-side applied with field
 * manager {@value #FIELD_MANAGER}, forcing conflicts, so installing again with another base URL
 * simply updates the objects.
 */
public final class WebhookInstaller {

  /** Field manager of the server-side applies. */
  public static final String FIELD_MANAGER = "ironcore-maintenance-testkit";

  /** How long to wait for each CRD to become Established. */
  public static final Duration ESTABLISHED_TIMEOUT = Duration.ofSeconds(60);

  private static final Logger LOG = LoggerFactory.getLogger(WebhookInstaller.class);

  private final KubernetesClient client;
  private final Kubectl kubectl;

  /**
   * @param client where to install
   * @param kubectl used only for {@code kubectl kustomize}; its kubeconfig does not matter
   */
  public WebhookInstaller(KubernetesClient client, Kubectl kubectl) {
    this.client = client;
    this.kubectl = kubectl;
  }

  /** Shortcut for {@code new WebhookInstaller(cp.client(), cp.kubectlTool()).install(...)}. */
  public static List<GenericKubernetesResource> install(
      TestCluster cp, Path overlayDir, String baseUrl, String caBundlePem) {
    return new WebhookInstaller(cp.client(), cp.kubectlTool())
        .install(overlayDir, baseUrl, caBundlePem);
  }

  /**
   * Renders {@code overlayDir}, rewrites webhook client configs (see {@link
   * RenderedManifests#pointWebhooksAt}) and applies everything.
   *
   * @param baseUrl e.g. {@code https://127.0.0.1:45123}
   * @param caBundlePem PEM of the CA of the webhook server's certificate
   * @return the objects as applied, in apply order
   * @throws IllegalStateException if rendering fails or a CRD is not Established in time
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if the API server rejects one
   */
  public List<GenericKubernetesResource> install(
      Path overlayDir, String baseUrl, String caBundlePem) {
    return install(overlayDir, baseUrl, caBundlePem, null);
  }

  /**
   * As {@link #install(Path, String, String)}, but for a cluster that stores only the resources of
   * {@code onlyApiGroup} (see {@link RenderedManifests#onlyForApiGroup}): only its CRDs and the
   * webhooks for its resources are installed. Null installs everything.
   */
  public List<GenericKubernetesResource> install(
      Path overlayDir, String baseUrl, String caBundlePem, String onlyApiGroup) {
    List<GenericKubernetesResource> objects = RenderedManifests.render(kubectl, overlayDir);
    if (onlyApiGroup != null) {
      objects = RenderedManifests.onlyForApiGroup(objects, onlyApiGroup);
    }
    RenderedManifests.pointWebhooksAt(objects, baseUrl, caBundlePem);
    List<GenericKubernetesResource> ordered = new ArrayList<>(objects);
    ordered.sort(Comparator.comparingInt(WebhookInstaller::rank));
    List<String> crds = new ArrayList<>();
    for (GenericKubernetesResource o : ordered) {
      if (rank(o) > 1 && !crds.isEmpty()) {
        crds.forEach(this::awaitEstablished);
        crds.clear();
      }
      apply(o);
      if ("CustomResourceDefinition".equals(o.getKind())) {
        crds.add(o.getMetadata().getName());
      }
    }
    crds.forEach(this::awaitEstablished);
    LOG.info(
        "installed {} objects from {}{} with webhooks at {}",
        ordered.size(),
        overlayDir,
        onlyApiGroup == null ? "" : " (only for " + onlyApiGroup + ")",
        baseUrl);
    return ordered;
  }

  private void apply(GenericKubernetesResource o) {
    HasMetadata applied =
        client.resource(o).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    LOG.debug("applied {} {}", o.getKind(), applied.getMetadata().getName());
  }

  private void awaitEstablished(String crdName) {
    try {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crdName)
          .waitUntilCondition(
              WebhookInstaller::established, ESTABLISHED_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "CRD " + crdName + " not Established within " + ESTABLISHED_TIMEOUT.toSeconds() + " s",
          e);
    }
  }

  /** True when the CRD has condition Established=True. */
  static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static int rank(GenericKubernetesResource o) {
    return switch (o.getKind()) {
      case "Namespace" -> 0;
      case "CustomResourceDefinition" -> 1;
      case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration" -> 3;
      default -> 2;
    };
  }
}

package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CaBundle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceConversion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Every {@code caBundle} through which the API server trusts the webhook server: each webhook of
 * the Mutating- and ValidatingWebhookConfiguration, and {@code
 * spec.conversion.webhook.clientConfig} of each named CRD whose conversion strategy is {@code
 * Webhook} (a CRD without webhook conversion has no slot and is reported as a note). Uses fabric8's
 * typed admissionregistration/v1 and apiextensions/v1 models; every write is an update with the
 * resourceVersion just read, so a concurrent change fails the write rather than being lost.
 *
 * <p>With several clusters (e.g. CAPI Machines in one API server, the IronCore API in another, each
 * registering only the webhooks of what it stores) the slots of all are one set, changed in
 * lockstep; each configuration and CRD must then exist in at least one of them.
 */
public final class ClusterTrust implements TrustStore {
  private final List<KubernetesClient> clients;
  private final String webhookConfiguration;
  private final List<String> crds;
  private final boolean localRun;

  /**
   * @param client cluster access
   * @param webhookConfiguration name of both webhook configurations
   * @param crds names of the CRDs whose conversion webhook we serve (may be empty)
   */
  public ClusterTrust(KubernetesClient client, String webhookConfiguration, List<String> crds) {
    this(List.of(client), webhookConfiguration, crds);
  }

  /**
   * @param clients one per cluster, in the order of {@link TrustSlot.Endpoint#cluster()}
   * @param webhookConfiguration name of both webhook configurations
   * @param crds names of the CRDs whose conversion webhook we serve (may be empty)
   */
  public ClusterTrust(
      List<KubernetesClient> clients, String webhookConfiguration, List<String> crds) {
    this(clients, webhookConfiguration, crds, false);
  }

  private ClusterTrust(
      List<KubernetesClient> clients,
      String webhookConfiguration,
      List<String> crds,
      boolean localRun) {
    this.clients = List.copyOf(clients);
    this.webhookConfiguration = webhookConfiguration;
    this.crds = List.copyOf(crds);
    this.localRun = localRun;
  }

  /**
   * The same objects in {@code make run}'s cluster(s), which {@code make run} registers at its
   * start: a missing webhook configuration (a {@code make uninstall} against it) is refused with
   * that advice, not with the cluster install's (fresh eyes: {@code manifests/default} there points
   * the webhooks at a Service nothing serves, and every MachinePool write failed).
   */
  public ClusterTrust ofLocalRun() {
    return new ClusterTrust(clients, webhookConfiguration, crds, true);
  }

  private String installHint() {
    return localRun
        ? "; make run registers the webhooks when it starts (make uninstall removed them?):"
            + " stop make run and start it again"
        : "; install the webhooks first (kubectl apply -k manifests/default)";
  }

  /**
   * What the cluster holds now.
   *
   * @param slots every caBundle, in a stable order
   * @param notes facts worth printing (CRDs without webhook conversion, unreadable bundles)
   */
  public record Snapshot(List<TrustSlot> slots, List<String> notes) {}

  /**
   * Reads all objects.
   *
   * @throws Refusal when a webhook configuration or CRD does not exist
   */
  @Override
  public Snapshot read() {
    List<Objects> all = fetchAll();
    List<TrustSlot> slots = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      Objects o = all.get(i);
      String prefix = prefix(i);
      if (o.mutating != null) {
        String owner = prefix + "MutatingWebhookConfiguration " + webhookConfiguration;
        for (MutatingWebhook w : nonNull(o.mutating.getWebhooks())) {
          slots.add(slot(i, owner, w.getName(), w.getClientConfig(), notes));
        }
      }
      if (o.validating != null) {
        String owner = prefix + "ValidatingWebhookConfiguration " + webhookConfiguration;
        for (ValidatingWebhook w : nonNull(o.validating.getWebhooks())) {
          slots.add(slot(i, owner, w.getName(), w.getClientConfig(), notes));
        }
      }
      for (CustomResourceDefinition crd : o.crds) {
        var cc = conversionClientConfig(crd);
        String owner = prefix + "CustomResourceDefinition " + crd.getMetadata().getName();
        if (cc == null) {
          notes.add(owner + ": no webhook conversion (strategy None), no caBundle to set");
          continue;
        }
        CaBundle bundle = parse(cc.getCaBundle(), owner + " [conversion]", notes);
        slots.add(
            new TrustSlot(owner, "conversion", bundle, endpoint(i, cc.getUrl(), cc.getService())));
      }
    }
    return new Snapshot(slots, notes);
  }

  /**
   * Re-reads every object, sets each caBundle to {@code change.apply(current)} and updates the
   * objects where one changed.
   *
   * @return one line per updated object, saying what it trusts now
   */
  @Override
  public List<String> update(UnaryOperator<CaBundle> change) {
    List<Objects> all = fetchAll();
    List<String> done = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      Objects o = all.get(i);
      KubernetesClient client = clients.get(i);
      if (o.mutating != null) {
        int changed = 0;
        for (MutatingWebhook w : nonNull(o.mutating.getWebhooks())) {
          changed += apply(w.getClientConfig(), change, ignored);
        }
        write(client, prefix(i), o.mutating, changed, done);
      }
      if (o.validating != null) {
        int changed = 0;
        for (ValidatingWebhook w : nonNull(o.validating.getWebhooks())) {
          changed += apply(w.getClientConfig(), change, ignored);
        }
        write(client, prefix(i), o.validating, changed, done);
      }
      for (CustomResourceDefinition crd : o.crds) {
        var cc = conversionClientConfig(crd);
        if (cc == null) {
          continue;
        }
        CaBundle now = parse(cc.getCaBundle(), "", ignored);
        CaBundle next = change.apply(now);
        if (!next.pem().equals(now.pem())) {
          cc.setCaBundle(encode(next));
          write(client, prefix(i), crd, 1, done);
        }
      }
    }
    return done;
  }

  private record Objects(
      MutatingWebhookConfiguration mutating,
      ValidatingWebhookConfiguration validating,
      List<CustomResourceDefinition> crds) {}

  /** Every cluster's objects (absent ones null or left out); refuses what no cluster has. */
  private List<Objects> fetchAll() {
    List<Objects> all = new ArrayList<>();
    for (KubernetesClient client : clients) {
      all.add(fetch(client));
    }
    String where = clients.size() == 1 ? "" : " in any of the " + clients.size() + " clusters";
    if (all.stream().allMatch(o -> o.mutating == null)) {
      throw new Refusal(
          "MutatingWebhookConfiguration "
              + webhookConfiguration
              + " not found"
              + where
              + installHint());
    }
    if (all.stream().allMatch(o -> o.validating == null)) {
      // the mutating one alone is what manifests/two-clusters/capi installs (fresh eyes: the hint
      // to apply manifests/default there would replace the two-cluster Deployments)
      throw new Refusal(
          "ValidatingWebhookConfiguration "
              + webhookConfiguration
              + " not found"
              + where
              + (localRun
                  ? installHint()
                  : clients.size() == 1
                      ? "; in the CAPI cluster of a two-cluster install, which has the mutating one"
                          + " only, give the IronCore cluster's kubeconfig too (IRONCORE_KUBECONFIG=,"
                          + " docs/two-clusters.md); in one cluster, install the webhooks first"
                          + " (kubectl apply -k manifests/default)"
                      : installHint()));
    }
    for (String name : crds) {
      boolean found =
          all.stream()
              .anyMatch(o -> o.crds.stream().anyMatch(c -> c.getMetadata().getName().equals(name)));
      if (!found) {
        throw new Refusal(
            "CustomResourceDefinition "
                + name
                + " not found"
                + where
                + "; install it (kubectl apply -k manifests/crds), or, where IronCore's own API"
                + " server serves compute.ironcore.dev, leave it out with --crds (CRDS= in make)");
      }
    }
    return all;
  }

  private Objects fetch(KubernetesClient client) {
    MutatingWebhookConfiguration m =
        ClusterCall.run(
            client,
            "get MutatingWebhookConfiguration " + webhookConfiguration,
            () ->
                client
                    .admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(webhookConfiguration)
                    .get());
    ValidatingWebhookConfiguration v =
        ClusterCall.run(
            client,
            "get ValidatingWebhookConfiguration " + webhookConfiguration,
            () ->
                client
                    .admissionRegistration()
                    .v1()
                    .validatingWebhookConfigurations()
                    .withName(webhookConfiguration)
                    .get());
    List<CustomResourceDefinition> found = new ArrayList<>();
    for (String name : crds) {
      CustomResourceDefinition crd =
          ClusterCall.run(
              client,
              "get CustomResourceDefinition " + name,
              () -> client.apiextensions().v1().customResourceDefinitions().withName(name).get());
      if (crd != null) {
        found.add(crd);
      }
    }
    return new Objects(m, v, found);
  }

  private String prefix(int cluster) {
    return clients.size() == 1 ? "" : "cluster " + (cluster + 1) + ": ";
  }

  private static TrustSlot.Endpoint endpoint(
      int cluster,
      String url,
      io.fabric8.kubernetes.api.model.apiextensions.v1.ServiceReference svc) {
    return svc == null
        ? new TrustSlot.Endpoint(cluster, url, null, null, 443)
        : new TrustSlot.Endpoint(
            cluster,
            null,
            svc.getNamespace(),
            svc.getName(),
            svc.getPort() == null ? 443 : svc.getPort());
  }

  private static io.fabric8.kubernetes.api.model.apiextensions.v1.WebhookClientConfig
      conversionClientConfig(CustomResourceDefinition crd) {
    CustomResourceConversion conv = crd.getSpec() == null ? null : crd.getSpec().getConversion();
    if (conv == null
        || !"Webhook".equals(conv.getStrategy())
        || conv.getWebhook() == null
        || conv.getWebhook().getClientConfig() == null) {
      return null;
    }
    return conv.getWebhook().getClientConfig();
  }

  private static TrustSlot slot(
      int cluster, String owner, String entry, WebhookClientConfig cc, List<String> notes) {
    CaBundle bundle = parse(cc.getCaBundle(), owner + " [" + entry + "]", notes);
    TrustSlot.Endpoint ep =
        cc.getService() == null
            ? new TrustSlot.Endpoint(cluster, cc.getUrl(), null, null, 443)
            : new TrustSlot.Endpoint(
                cluster,
                null,
                cc.getService().getNamespace(),
                cc.getService().getName(),
                cc.getService().getPort() == null ? 443 : cc.getService().getPort());
    return new TrustSlot(owner, entry, bundle, ep);
  }

  private static int apply(
      WebhookClientConfig cc, UnaryOperator<CaBundle> change, List<String> ignored) {
    CaBundle now = parse(cc.getCaBundle(), "", ignored);
    CaBundle next = change.apply(now);
    if (next.pem().equals(now.pem())) {
      return 0;
    }
    cc.setCaBundle(encode(next));
    return 1;
  }

  private static void write(
      KubernetesClient client, String prefix, HasMetadata object, int changed, List<String> done) {
    if (changed == 0) {
      return;
    }
    ClusterCall.run(
        client,
        "update " + object.getKind() + " " + object.getMetadata().getName(),
        () -> client.resource(object).update());
    done.add(
        prefix
            + object.getKind()
            + " "
            + object.getMetadata().getName()
            + ": "
            + changed
            + (changed == 1 ? " caBundle" : " caBundles")
            + " updated");
  }

  /** Base64 PEM as stored in {@code caBundle}; unreadable text counts as empty, with a note. */
  private static CaBundle parse(String base64, String where, List<String> notes) {
    if (base64 == null || base64.isBlank()) {
      return CaBundle.empty();
    }
    try {
      return CaBundle.parse(new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      notes.add(where + ": caBundle unreadable (" + e.getMessage() + "), will be replaced");
      return CaBundle.empty();
    }
  }

  private static String encode(CaBundle bundle) {
    return Base64.getEncoder().encodeToString(bundle.pem().getBytes(StandardCharsets.UTF_8));
  }

  private static <T> List<T> nonNull(List<T> list) {
    return list == null ? List.of() : list;
  }
}

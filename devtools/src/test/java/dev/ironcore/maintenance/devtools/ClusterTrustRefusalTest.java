package dev.ironcore.maintenance.devtools;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.install.ClusterTrust;
import dev.ironcore.maintenance.certs.install.Refusal;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fresh eyes (session 41): {@code make certs} in the CAPI cluster of a two-cluster install without
 * {@code IRONCORE_KUBECONFIG} said "install the webhooks first (kubectl apply -k
 * manifests/default)", which there would replace the two-cluster Deployments. A cluster holding the
 * mutating configuration only (what manifests/two-clusters/capi installs) is pointed at
 * IRONCORE_KUBECONFIG first.
 */
class ClusterTrustRefusalTest {
  @Test
  void aClusterWithTheMutatingConfigurationOnlyIsPointedAtTheTwoClusterInstall() {
    KubernetesClient client = SharedControlPlane.get().client();
    String name = "trust-refusal-test";
    var mutating =
        client
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .resource(
                new MutatingWebhookConfigurationBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .build())
            .create();
    try {
      assertThatThrownBy(() -> new ClusterTrust(client, name, List.of()).read())
          .isInstanceOf(Refusal.class)
          .hasMessage(
              "ValidatingWebhookConfiguration "
                  + name
                  + " not found; in the CAPI cluster of a two-cluster install, which has the"
                  + " mutating one only, give the IronCore cluster's kubeconfig too"
                  + " (IRONCORE_KUBECONFIG=, docs/two-clusters.md); in one cluster, install the"
                  + " webhooks first (kubectl apply -k manifests/default)");
    } finally {
      client
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .resource(mutating)
          .delete();
    }
  }

  /**
   * Fresh eyes (session 45): after {@code make uninstall} against {@code make run}'s cluster,
   * {@code make certs} advised {@code kubectl apply -k manifests/default}, whose webhooks call a
   * Service nothing serves locally (every MachinePool write then failed). make run's cluster is
   * pointed at a restart of make run, which registers them.
   */
  @Test
  void makeRunsClusterWithoutTheWebhooksIsPointedAtARestartOfMakeRun() {
    KubernetesClient client = SharedControlPlane.get().client();
    String name = "trust-refusal-local-run";
    assertThatThrownBy(() -> new ClusterTrust(client, name, List.of()).ofLocalRun().read())
        .isInstanceOf(Refusal.class)
        .hasMessage(
            "MutatingWebhookConfiguration "
                + name
                + " not found; make run registers the webhooks when it starts (make uninstall"
                + " removed them?): stop make run and start it again");
  }
}

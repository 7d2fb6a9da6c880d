package dev.ironcore.maintenance.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class LocalControlPlaneTest {

  @Test
  void listsNamespacesWithClientAndKubectl() throws Exception {
    LocalControlPlane cp = SharedControlPlane.get();
    assertThat(Files.readString(cp.kubeconfig())).contains(cp.apiServerUrl());

    cp.client()
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("testkit-smoke")
                .endMetadata()
                .build())
        .serverSideApply();
    assertThat(cp.client().namespaces().list().getItems())
        .extracting(Namespace::getMetadata)
        .extracting(m -> m.getName())
        .contains("default", "testkit-smoke");

    KubectlResult r = cp.kubectl("get", "ns", "-o", "name");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.stdout()).contains("namespace/default", "namespace/testkit-smoke");

    KubectlResult auth = cp.kubectl("auth", "can-i", "*", "*").orThrow();
    assertThat(auth.stdout().strip()).isEqualTo("yes");
  }

  @Test
  void kubectlReportsFailuresWithoutThrowing() {
    KubectlResult r = SharedControlPlane.get().kubectl("get", "nosuchkind");
    assertThat(r.ok()).isFalse();
    assertThat(r.stderr()).isNotBlank();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fresh eyes (session 41): a Cluster API that serves {@code cluster.x-k8s.io} in v1beta1 only
 * (before CAPI 1.11) got no protection (the webhooks match v1beta2) and a controller that listed a
 * 404 for ever without saying why. Its start is refused, naming the versions served and what is
 * needed. A control plane of its own, with the local CAPI CRD cut to v1beta1.
 */
class CapiV1beta1OnlyE2ETest {
  @TempDir Path dir;

  @Test
  void aClusterApiWithoutV1beta2IsRefusedAtStartNamingTheVersionNeeded() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      SingleVersionCrds.install(cp, null, "v1beta1");
      var client = cp.newClient();
      try {
        assertThatThrownBy(() -> new ControllerApp(client, ControllerOptions.defaults()).start())
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(
                "cluster.x-k8s.io on "
                    + client.getMasterUrl()
                    + " serves [v1beta1], not v1beta2: ironcore-maintenance needs Cluster API 1.11"
                    + " or later (its webhooks and informer use v1beta2 Machines; with this"
                    + " Cluster API, CAPI Machines would be deleted without a drain)");
      } finally {
        client.close();
      }
    }
  }
}

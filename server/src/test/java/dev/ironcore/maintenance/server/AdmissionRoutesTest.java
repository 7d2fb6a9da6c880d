package dev.ironcore.maintenance.server;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each admission path judges only its own group and kind ({@code ExpectedKind}). */
class AdmissionRoutesTest {
  private final Map<String, AdmissionHandler> routes = AdmissionRoutes.create(labels -> true);

  private static AdmissionRequest review(String group, String version, String kind) {
    return AdmissionRequest.fromReview(
        TestReviews.review(
            "uid-k",
            group,
            version,
            kind,
            kind.toLowerCase() + "s",
            Operation.CREATE,
            json("{'metadata':{'name':'x','namespace':'ns'},'spec':{}}"),
            null));
  }

  @Test
  void aMachinePoolSentToTheMachinePathIsRefusedNamingBothKinds() {
    AdmissionResponse r =
        routes
            .get(AdmissionRoutes.VALIDATE_MACHINE)
            .handle(review("compute.ironcore.dev", "v1alpha2", "MachinePool"));
    assertThat(r.isAllowed()).isFalse();
    assertThat(r.decision()).isEqualTo(AdmissionResponse.Decision.ERRORED);
    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message())
        .isEqualTo(
            "/validate/machine judges Machine.compute.ironcore.dev only, got"
                + " MachinePool.compute.ironcore.dev: the webhook configuration's rules send this"
                + " path a resource it does not judge");
  }

  @Test
  void everyPathRefusesTheOtherKindsAndAcceptsItsOwnInAnyVersion() {
    Map<String, String[]> own =
        Map.of(
            AdmissionRoutes.MUTATE_CAPI_MACHINE, new String[] {"cluster.x-k8s.io", "Machine"},
            AdmissionRoutes.MUTATE_MACHINE, new String[] {"compute.ironcore.dev", "Machine"},
            AdmissionRoutes.VALIDATE_MACHINE, new String[] {"compute.ironcore.dev", "Machine"},
            AdmissionRoutes.MUTATE_MACHINEPOOL,
                new String[] {"compute.ironcore.dev", "MachinePool"},
            AdmissionRoutes.VALIDATE_MACHINEPOOL,
                new String[] {"compute.ironcore.dev", "MachinePool"});
    assertThat(routes.keySet()).containsExactlyInAnyOrderElementsOf(own.keySet());
    String[][] kinds = {
      {"cluster.x-k8s.io", "Machine"},
      {"compute.ironcore.dev", "Machine"},
      {"compute.ironcore.dev", "MachinePool"},
      {"", "Pod"}
    };
    own.forEach(
        (path, mine) -> {
          for (String[] k : kinds) {
            boolean same = k[0].equals(mine[0]) && k[1].equals(mine[1]);
            for (String version : new String[] {"v1alpha1", "v1alpha2", "v1beta2"}) {
              AdmissionResponse r = routes.get(path).handle(review(k[0], version, k[1]));
              assertThat(r.decision() == AdmissionResponse.Decision.ERRORED)
                  .as("%s with %s/%s %s", path, k[0], version, k[1])
                  .isEqualTo(!same);
              if (!same) {
                assertThat(r.message()).startsWith(path + " judges ").contains(" only, got ");
              }
            }
          }
        });
  }
}

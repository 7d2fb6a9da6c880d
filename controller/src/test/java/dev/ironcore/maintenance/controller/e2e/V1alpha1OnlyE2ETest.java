package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.drain.LiveBoundMachines;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An API server that serves compute.ironcore.dev in v1alpha1 only (as a real IronCore does): the
 * controller reads v1alpha1 and evicts as before, with {@code tolerationSeconds} (kept there as an
 * unknown field) ignored. A control plane of its own, with our CRDs cut to v1alpha1: the drain's
 * live check of a pool's Machines asks with IronCore's field selector {@code
 * spec.machinePoolRef.name} (v1alpha1 declares it, as IronCore's API server serves it: fresh eyes,
 * session 44, found our v1alpha1 refusing it, which IronCore's machinepoollet lists by), and lists
 * every Machine in pages where the API server refuses the selector (the selectable fields removed).
 */
class V1alpha1OnlyE2ETest {
  @TempDir Path dir;

  private static Machine machine(String name, Long tolerationSeconds) {
    Machine m = new Machine();
    m.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("default").build());
    MachineSpec spec = new MachineSpec();
    spec.setMachineClassRef(new LocalRef("x3-small"));
    spec.setMachinePoolRef(new LocalRef("pool"));
    if (tolerationSeconds != null) {
      Toleration t = new Toleration("k", "Exists", null, "NoExecute");
      t.setTolerationSeconds(tolerationSeconds);
      spec.setTolerations(List.of(t));
    }
    m.setSpec(spec);
    return m;
  }

  @Test
  void theControllerReadsV1alpha1AndIgnoresTolerationSeconds() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      SingleVersionCrds.install(cp, "v1alpha1", null);
      KubernetesClient client = cp.client();
      assertThat(ComputeApi.served(client)).containsExactly("v1alpha1");
      assertThat(ComputeApi.of(ComputeApi.served(client))).isEqualTo(ComputeApi.V1ALPHA1);
      client.resources(Machine.class).resource(machine("vm-plain", null)).create();
      client.resources(Machine.class).resource(machine("vm-zero", 0L)).create();
      MachinePool pool = new MachinePool();
      pool.setMetadata(new ObjectMetaBuilder().withName("pool").build());
      MachinePoolSpec spec = new MachinePoolSpec();
      spec.setTaints(List.of(new Taint("k", null, "NoExecute")));
      pool.setSpec(spec);
      client.resources(MachinePool.class).resource(pool).create();

      try (ControllerApp controller =
          new ControllerApp(cp.newClient(), ControllerOptions.defaults()).start()) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    client
                            .resources(Machine.class)
                            .inNamespace("default")
                            .withName("vm-plain")
                            .get()
                        == null);
        // vm-zero would go at once with delayed eviction; here its toleration matches for good
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    client.resources(Machine.class).inNamespace("default").withName("vm-zero").get()
                        != null);
        assertThat(
                client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(e -> Names.EVICTED_REASON.equals(e.getReason()))
                    .map(e -> e.getInvolvedObject().getName()))
            .containsExactly("vm-plain");
        LiveBoundMachines live = new LiveBoundMachines(client, Machine.class);
        assertThat(live.boundTo("pool"))
            .extracting(m -> m.getMetadata().getName())
            .containsExactly("vm-zero");
        assertThat(live.usesFieldSelector()).as("IronCore's field selector in v1alpha1").isTrue();
        assertThat(
                cp.kubectl(
                        "get",
                        "machines.v1alpha1.compute.ironcore.dev",
                        "-A",
                        "--field-selector",
                        "spec.machineClassRef.name=x3-small",
                        "-o",
                        "name")
                    .orThrow()
                    .stdout())
            .contains("machine.compute.ironcore.dev/vm-zero");

        cp.kubectl(
                "patch",
                "crd",
                "machines.compute.ironcore.dev",
                "--type=json",
                "-p",
                "[{\"op\":\"remove\",\"path\":\"/spec/versions/0/selectableFields\"}]")
            .orThrow();
        LiveBoundMachines paged = new LiveBoundMachines(client, Machine.class);
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  assertThat(paged.boundTo("pool"))
                      .extracting(m -> m.getMetadata().getName())
                      .containsExactly("vm-zero");
                  assertThat(paged.usesFieldSelector())
                      .as("field selector refused: paged LIST")
                      .isFalse();
                });
      }
    }
  }
}

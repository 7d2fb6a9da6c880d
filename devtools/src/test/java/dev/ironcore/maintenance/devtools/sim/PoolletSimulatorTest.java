package dev.ironcore.maintenance.devtools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The poollet simulator against a real API server: it removes only the poollet finalizer of a
 * deleting Machine, from the watched object when that is current and through a fresh read when the
 * finalizers moved meanwhile (the guarded patch is refused).
 */
class PoolletSimulatorTest {
  private static final String OTHER = "example.com/other";

  private static Machine machine(KubernetesClient c, String ns, String name, String pool) {
    Machine m = new Machine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .withFinalizers(OTHER, Names.POOLLET_FINALIZER)
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachineClassRef(new LocalRef("small"));
    spec.setMachinePoolRef(new LocalRef(pool));
    m.setSpec(spec);
    return c.resources(Machine.class).inNamespace(ns).resource(m).create();
  }

  private static List<String> finalizers(KubernetesClient c, String ns, String name) {
    Machine m = c.resources(Machine.class).inNamespace(ns).withName(name).get();
    return m == null ? null : m.getMetadata().getFinalizers();
  }

  @Test
  void releasesOnlyThePoolletFinalizerFromTheWatchedObjectOrAFreshRead() {
    TestCluster cp = TestClusters.shared();
    CrdsWithConversion.install(cp, "crds", "capi-local");
    KubernetesClient c = cp.client();
    String ns = "sim-" + UUID.randomUUID().toString().substring(0, 6);
    c.namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    String pool = ns + "-pool";
    MachinePool p = new MachinePool();
    p.setMetadata(new ObjectMetaBuilder().withName(pool).build());
    c.resources(MachinePool.class).resource(p).create();
    machine(c, ns, "current", pool);
    machine(c, ns, "moved", pool);
    machine(c, ns, "orphan", ns + "-gone");
    try (KubernetesClient simulatorClient = cp.newClient();
        PoolletSimulator poollet =
            new PoolletSimulator(new KubeWriter(simulatorClient), Duration.ofSeconds(3))) {
      poollet.start();
      c.resources(Machine.class).inNamespace(ns).withName("current").delete();
      c.resources(Machine.class).inNamespace(ns).withName("moved").delete();
      c.resources(Machine.class).inNamespace(ns).withName("orphan").delete();
      // while the simulated VM shuts down, another finalizer goes: ours moves from index 1 to 0
      c.resources(Machine.class)
          .inNamespace(ns)
          .withName("moved")
          .edit(
              m -> {
                m.getMetadata().getFinalizers().remove(OTHER);
                return m;
              });

      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> List.of(OTHER).equals(finalizers(c, ns, "current")));
      await().atMost(Duration.ofSeconds(60)).until(() -> finalizers(c, ns, "moved") == null);
      assertThat(finalizers(c, ns, "current")).containsExactly(OTHER);
      // a Machine bound to a pool that does not exist has no poollet: left to the controller's
      // orphan release (its "shutdown" of 3 s has passed for the others by now)
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(10))
          .until(() -> List.of(OTHER, Names.POOLLET_FINALIZER).equals(finalizers(c, ns, "orphan")));
      // its pool created again: released as that pool's poollet would (fresh eyes: never)
      MachinePool again = new MachinePool();
      again.setMetadata(new ObjectMetaBuilder().withName(ns + "-gone").build());
      c.resources(MachinePool.class).resource(again).create();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> List.of(OTHER).equals(finalizers(c, ns, "orphan")));
    }
  }
}

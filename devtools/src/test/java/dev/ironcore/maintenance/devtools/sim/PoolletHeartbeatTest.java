package dev.ironcore.maintenance.devtools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The poollet simulator's heartbeat against a real API server, with the controller's health loop
 * running (grace period shrunk to 2 s): a labelled pool keeps a renewed Lease and stays Ready=True
 * well past the grace period; an unlabelled pool gets no Lease and turns Unknown.
 */
class PoolletHeartbeatTest {

  private static MachinePool pool(KubernetesClient c, String name, Map<String, String> labels) {
    MachinePool p = new MachinePool();
    p.setMetadata(new ObjectMetaBuilder().withName(name).withLabels(labels).build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setProviderID("ironcore://" + name);
    p.setSpec(spec);
    return c.resources(MachinePool.class).resource(p).create();
  }

  private static Condition ready(KubernetesClient c, String name) {
    MachinePool p = c.resources(MachinePool.class).withName(name).get();
    return p.getStatus() == null
        ? null
        : Conditions.find(p.getStatus().getConditions(), Names.READY_CONDITION);
  }

  @Test
  void labelledPoolsStayReadyPastTheGracePeriodOthersTurnUnknown() throws Exception {
    TestCluster cp = TestClusters.shared();
    // The CRDs convert through a webhook: install them with a conversion server in this JVM (the
    // plain overlay points at a Service that does not exist here and would break every later read
    // of the shared cluster).
    CrdsWithConversion.install(cp, "crds", "capi-local");
    cp.kubectl("apply", "--server-side", "-k", ManifestPaths.overlay("namespaces").toString())
        .orThrow();
    cp.kubectl(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/machinepools.compute.ironcore.dev",
            "crd/machines.compute.ironcore.dev",
            "crd/machines.cluster.x-k8s.io")
        .orThrow();
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    String beating = "beating-" + suffix;
    String silent = "silent-" + suffix;
    KubernetesClient c = cp.client();
    pool(c, beating, Map.of(PoolletHeartbeat.LABEL, "true"));
    pool(c, silent, Map.of());
    try (KubernetesClient simulatorClient = cp.newClient();
        PoolletHeartbeat heartbeat =
            new PoolletHeartbeat(simulatorClient, Duration.ofSeconds(40), Duration.ofMillis(500));
        ControllerApp controller =
            new ControllerApp(
                    cp.newClient(),
                    ControllerOptions.defaults().withGracePeriod(Duration.ofSeconds(2)))
                .start()) {
      heartbeat.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> "Unknown".equals(statusOf(ready(c, silent))));
      Lease lease = c.leases().inNamespace(Names.LEASE_NAMESPACE).withName(beating).get();
      assertThat(lease.getSpec().getHolderIdentity()).startsWith(beating + "_");
      assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
      var firstRenew = lease.getSpec().getRenewTime();
      Thread.sleep(6000); // three grace periods
      assertThat(ready(c, beating).getStatus()).isEqualTo("True");
      assertThat(
              c.leases()
                  .inNamespace(Names.LEASE_NAMESPACE)
                  .withName(beating)
                  .get()
                  .getSpec()
                  .getRenewTime())
          .isAfter(firstRenew);
      assertThat(c.leases().inNamespace(Names.LEASE_NAMESPACE).withName(silent).get()).isNull();
      assertThat(ready(c, silent).getStatus()).isEqualTo("Unknown");
    }
  }

  private static String statusOf(Condition c) {
    return c == null ? null : c.getStatus();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.json.JsonMappers;
import io.fabric8.kubernetes.api.model.AuthInfoBuilder;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller process whose informer of Machines cannot list: it runs as a ServiceAccount that
 * may list everything the caches read but Machines (as a conversion webhook that fails every
 * v1alpha2 list of Machines, or RBAC without that list, would leave it). The start waits 60 s for
 * its caches, then ends with exit code 1 and one line naming what did not sync and why; it used to
 * be {@code ironcore-maintenance-controller: TimeoutException}. It runs with {@code
 * --leader-elect}: the Lease it won is released on the way out (it used to stay held until it
 * expired, 15 s, with the standby waiting).
 */
class CacheSyncFailureTest {
  private static final String LEASE = "sync-failure";

  @TempDir Path dir;

  @Test
  void cachesThatDoNotSyncNameTheInformerAndTheApiServersAnswer() throws Exception {
    ControllerWorld world = new ControllerWorld();
    String account = "no-machine-list";
    String role = "e2e-no-machine-list-" + world.suffix;
    world
        .cp
        .kubectlTool()
        .runWithInput(
            """
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: %1$s, namespace: %2$s}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: %3$s}
            rules:
            - {apiGroups: [cluster.x-k8s.io], resources: [machines], verbs: [list, watch]}
            - {apiGroups: [compute.ironcore.dev], resources: [machinepools], verbs: [list, watch]}
            - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [list, watch, get, create, update, patch]}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: %3$s}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: %3$s}
            subjects: [{kind: ServiceAccount, name: %1$s, namespace: %2$s}]
            """
                .formatted(account, world.ns, role),
            "apply",
            "-f",
            "-")
        .orThrow();
    try {
      String token =
          world
              .cp
              .kubectl("create", "token", account, "-n", world.ns, "--duration=1h")
              .orThrow()
              .stdout()
              .strip();
      KubernetesSerialization yaml = JsonMappers.kubernetesSerialization();
      Config kubeconfig = yaml.unmarshal(Files.readString(world.cp.kubeconfig()), Config.class);
      String userName = kubeconfig.getContexts().get(0).getContext().getUser();
      kubeconfig.setUsers(
          List.of(new NamedAuthInfo(userName, new AuthInfoBuilder().withToken(token).build())));
      Path file = Files.writeString(dir.resolve("kubeconfig"), yaml.asYaml(kubeconfig));
      Path log = dir.resolve("controller.log");
      long started = System.nanoTime();
      try (ControllerProcess controller =
          ControllerProcess.start(
              file,
              log,
              Map.of("POD_NAME", "sync-failure-0"),
              "--leader-elect",
              "--leader-election-namespace=" + world.ns,
              "--leader-election-id=" + LEASE)) {
        Awaitility.await()
            .atMost(Duration.ofSeconds(150))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> !controller.alive());
        assertThat(controller.terminate()).isEqualTo(1);
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("the start waits 60 s for its caches")
          .isGreaterThan(Duration.ofSeconds(60));
      String text = Files.readString(log);
      // fabric8 releases as a 1 s lease renewed then (the holder name stays)
      var lease = world.client.leases().inNamespace(world.ns).withName(LEASE).get().getSpec();
      assertThat(lease.getHolderIdentity()).isEqualTo("sync-failure-0");
      assertThat(lease.getLeaseDurationSeconds()).isEqualTo(1);
      assertThat(text)
          .contains("sync-failure-0 released the lease")
          .doesNotContain("lost the lease");
      assertThat(text)
          .endsWith(
              "\nironcore-maintenance-controller: caches did not sync within 60 s: informer"
                  + " machines: list failed: answered 403 Forbidden:"
                  + " machines.compute.ironcore.dev is forbidden: User"
                  + " \"system:serviceaccount:"
                  + world.ns
                  + ":"
                  + account
                  + "\" cannot list resource \"machines\" in API group \"compute.ironcore.dev\""
                  + " at the cluster scope\n");
    } finally {
      world.cp.kubectl("delete", "clusterrolebinding,clusterrole", role, "--ignore-not-found");
    }
  }
}

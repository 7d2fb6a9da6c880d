package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.AuthInfo;
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
 * The controller process with a kubeconfig for the real API server (its server and CA) whose
 * credentials the API server refuses: a bogus bearer token (401), or none at all (anonymous, 403).
 * kube-apiserver ends the HTTP/2 connection of such a request with GOAWAY, and the JDK's HTTP
 * client before JDK 24 failed the request with {@code GOAWAY received} instead of delivering the
 * answer; fabric8 retried that for about 22 s and the start failed with {@code ... serves: GOAWAY
 * received}. Now the start fails within seconds, with one line saying what the API server answered,
 * exit code 1.
 */
class RefusedCredentialsTest {
  @TempDir Path dir;

  /** Without the fix about 22 s of fabric8's retries came first; a JVM start takes 1-3 s. */
  private static final Duration AT_ONCE = Duration.ofSeconds(15);

  @Test
  void aTokenTheApiServerRefusesIsNamedAtOnce() throws Exception {
    TestCluster cp = TestClusters.shared();
    String log = run(cp, new AuthInfoBuilder().withToken("bogus").build());
    assertThat(log)
        .endsWith(
            "ironcore-maintenance-controller: cannot read which versions of compute.ironcore.dev "
                + masterUrl(cp)
                + " serves: answered 401 Unauthorized (check the kubeconfig's credentials, or in a"
                + " pod its service account token)\n")
        .doesNotContain("GOAWAY");
  }

  /**
   * Two clusters, the CAPI one refusing the token: named at once as for the IronCore API (fresh
   * eyes, session 47: a WARN, and the start failed 72 s later at the caches' deadline).
   */
  @Test
  void aTokenTheCapiApiServerRefusesIsNamedAtOnceWithTwoClusters() throws Exception {
    TestCluster cp = TestClusters.shared();
    String log =
        run(
            cp,
            new AuthInfoBuilder().withToken("bogus").build(),
            "--ironcore-kubeconfig=" + cp.kubeconfig());
    assertThat(log)
        .endsWith(
            "ironcore-maintenance-controller: cannot read which versions of cluster.x-k8s.io "
                + masterUrl(cp)
                + " serves: answered 401 Unauthorized (check the kubeconfig's credentials, or in a"
                + " pod its service account token)\n");
  }

  /** With leader election the dry-run create of the Lease (a POST) is the first request. */
  @Test
  void aRefusedTokenStopsALeaderElectionStartToo() throws Exception {
    TestCluster cp = TestClusters.shared();
    String log = run(cp, new AuthInfoBuilder().withToken("bogus").build(), "--leader-elect");
    assertThat(log)
        .endsWith(
            "ironcore-maintenance-controller: cannot write leader-election Lease"
                + " ironcore-maintenance-system/ironcore-maintenance-controller: answered 401"
                + " Unauthorized (check the kubeconfig's credentials, or in a pod its service"
                + " account token)\n");
  }

  @Test
  void noCredentialsAreNamedAtOnce() throws Exception {
    TestCluster cp = TestClusters.shared();
    String log = run(cp, new AuthInfo());
    assertThat(log)
        .endsWith(
            "ironcore-maintenance-controller: cannot read which versions of compute.ironcore.dev "
                + masterUrl(cp)
                + " serves: answered 403 Forbidden: User \"system:anonymous\" cannot get path"
                + " \"/apis/compute.ironcore.dev\" (the request carried no credentials)\n");
  }

  /**
   * Starts the controller on the cluster's kubeconfig with {@code user} as its only user, waits for
   * it to end (exit code 1, within {@link #AT_ONCE}) and returns what it wrote.
   */
  private String run(TestCluster cp, AuthInfo user, String... flags) throws Exception {
    KubernetesSerialization yaml = JsonMappers.kubernetesSerialization();
    Config kubeconfig = yaml.unmarshal(Files.readString(cp.kubeconfig()), Config.class);
    String userName = kubeconfig.getContexts().get(0).getContext().getUser();
    kubeconfig.setUsers(List.of(new NamedAuthInfo(userName, user)));
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, yaml.asYaml(kubeconfig));
    Path log = dir.resolve("controller.log");
    Files.deleteIfExists(log);
    long started = System.nanoTime();
    try (ControllerProcess controller =
        ControllerProcess.start(file, log, Map.of("POD_NAME", "refused-credentials"), flags)) {
      Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> !controller.alive());
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(controller.terminate()).isEqualTo(1);
      assertThat(took).as("ended at once, not after fabric8's retries").isLessThan(AT_ONCE);
    }
    return Files.readString(log);
  }

  private static String masterUrl(TestCluster cp) {
    return cp.client().getMasterUrl().toString();
  }
}

package dev.ironcore.maintenance.server.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.certs.Pem;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An install spread over two API servers (docs/two-clusters.md): cluster A has only the mutating
 * configuration, cluster B both. {@code make certs} with two kubeconfigs sets every caBundle of
 * both, and {@code make rotate-certs} rotates them in lockstep under admission load in B with zero
 * failed calls.
 */
class TwoClustersCertsApiServerTest {
  @TempDir Path tmp;

  @Test
  void bothClustersTrustTheCaAndRotateInLockstep() throws Exception {
    String id = "certs-two-" + UUID.randomUUID().toString().substring(0, 6);
    int port = FreePorts.pick(1).get(0);
    String base = "https://127.0.0.1:" + port;
    // cluster A of its own, without the compute.ironcore.dev CRDs as in docs/two-clusters.md: the
    // shared cluster's CRDs convert through another test's server, which this rotation would wait
    // on
    try (LocalControlPlane a =
            LocalControlPlane.start(
                SharedControlPlane.binDir(),
                Path.of("target", "controlplane", ProcessHandle.current().pid() + "-certs-a"));
        LocalControlPlane b =
            LocalControlPlane.start(
                SharedControlPlane.binDir(),
                Path.of("target", "controlplane", ProcessHandle.current().pid() + "-certs-b"))) {
      CertsWorld worldA = CertsWorld.install(a, id, base, false);
      CertsWorld worldB = CertsWorld.install(b, id, base, true);
      a.client()
          .admissionRegistration()
          .v1()
          .validatingWebhookConfigurations()
          .withName(id)
          .delete();
      b.kubectl("create", "namespace", id).orThrow();
      List<String> args =
          new ArrayList<>(
              List.of(
                  "--kubeconfig=" + a.kubeconfig(),
                  "--kubeconfig=" + b.kubeconfig(),
                  "--webhook-configuration=" + id,
                  "--crds="
                      + worldB.conversionCrd()
                      + ","
                      + worldB.plainCrd()
                      + ","
                      + String.join(",", CertsWorld.SHARED_CRDS),
                  "--ca-dir=" + tmp.resolve("ca"),
                  "--serving-files=" + tmp.resolve("serving"),
                  "--san=127.0.0.1",
                  "--wait-timeout=120s"));
      CertsWorld.Run first = CertsWorld.run(args);
      assertThat(first.exitCode()).as(first.err()).isZero();
      assertThat(first.out())
          .contains(
              "cluster 1: MutatingWebhookConfiguration",
              "cluster 2: ValidatingWebhookConfiguration");

      WebhookServer server =
          new WebhookServer(
              WebhookServerConfig.of(tmp.resolve("serving/tls.crt"), tmp.resolve("serving/tls.key"))
                  .withBindAddress("127.0.0.1")
                  .withCertificateReloadInterval(Duration.ofMillis(500)));
      server.start(port);
      AdmissionLoad load = new AdmissionLoad(b, id, CertsWorld.LABEL + ": " + id, id + "-pool", 2);
      try {
        KubectlResult pool = b.kubectlTool().runWithInput(load.poolYaml(0), "apply", "-f", "-");
        assertThat(pool.ok()).as(pool.stderr()).isTrue();
        load.start();
        await().atMost(Duration.ofMinutes(2)).until(() -> load.ok() >= 6);

        args.add("--rotate");
        CertsWorld.Run rotation = CertsWorld.run(args);

        assertThat(rotation.exitCode()).as(rotation.err()).isZero();
        String ca =
            Base64.getEncoder()
                .encodeToString(
                    Pem.encode(Pem.decodeCertificate(Files.readString(tmp.resolve("ca/ca.crt"))))
                        .getBytes(StandardCharsets.UTF_8));
        var mutatingA =
            a.client()
                .admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName(id)
                .get();
        mutatingA
            .getWebhooks()
            .forEach(h -> assertThat(h.getClientConfig().getCaBundle()).isEqualTo(ca));
        worldB
            .caBundles()
            .forEach(
                (slot, bundle) -> {
                  if (!slot.equals("plain")) {
                    assertThat(bundle).as(slot).isEqualTo(ca);
                  }
                });
        int after = load.ok() + 6;
        await().atMost(Duration.ofMinutes(2)).until(() -> load.ok() >= after);
        assertThat(load.failures()).isEmpty();
        assertThat(worldA.id).isEqualTo(worldB.id);
      } finally {
        load.close();
        server.stop(); // both clusters go away with this test
      }
    }
  }
}

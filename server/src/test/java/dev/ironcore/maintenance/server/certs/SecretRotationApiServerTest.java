package dev.ironcore.maintenance.server.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.certs.CaBundle;
import dev.ironcore.maintenance.certs.Pem;
import dev.ironcore.maintenance.certs.install.FilePairStore;
import dev.ironcore.maintenance.certs.install.SecretPairStore;
import dev.ironcore.maintenance.certs.install.ServingPairStore;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make rotate-certs} against a cluster install: the pair lives in the {@code
 * kubernetes.io/tls} Secret, and a kubelet stand-in copies the Secret into a directory the way the
 * kubelet updates a mounted Secret (new timestamped directory, atomic {@code ..data} symlink swap),
 * from which the webhook server reloads. Under a continuous stream of admission calls and
 * conversion reads (v1alpha1 reads of objects stored as v1alpha2, converted by this server) the
 * rotation completes with zero failed calls, and every caBundle, the CRDs' conversion ones
 * included, holds exactly the new CA.
 */
class SecretRotationApiServerTest {
  @TempDir Path tmp;

  @Test
  void rotationThroughTheSecretAndAMountedVolumeFailsNoCall() throws Exception {
    TestCluster cp = TestClusters.shared();
    String id = "certs-sec-" + UUID.randomUUID().toString().substring(0, 6);
    int port = FreePorts.pick(1).get(0);
    CertsWorld world = CertsWorld.install(cp, id, "https://127.0.0.1:" + port, true);
    cp.kubectl("create", "namespace", id).orThrow();
    List<String> args = new ArrayList<>(world.flags());
    args.addAll(
        List.of(
            "--namespace=" + id,
            "--secret=webhook-tls",
            "--ca-dir=" + tmp.resolve("ca"),
            "--san=127.0.0.1",
            "--wait-timeout=120s"));
    assertThat(CertsWorld.run(args).exitCode()).isZero();

    SecretPairStore secret = new SecretPairStore(cp.client(), id, "webhook-tls");
    FilePairStore mount = new FilePairStore(tmp.resolve("mount"));
    ScheduledExecutorService kubelet = Executors.newSingleThreadScheduledExecutor();
    sync(secret, mount);
    var unused =
        kubelet.scheduleWithFixedDelay(() -> sync(secret, mount), 500, 500, TimeUnit.MILLISECONDS);
    WebhookServer server =
        new WebhookServer(
            WebhookServerConfig.of(mount.certFile(), mount.keyFile())
                .withBindAddress("127.0.0.1")
                .withCertificateReloadInterval(Duration.ofMillis(500)));
    server.start(port);
    AdmissionLoad load = new AdmissionLoad(cp, id, CertsWorld.LABEL + ": " + id, id + "-pool", 2);
    try {
      KubectlResult pool = cp.kubectlTool().runWithInput(load.poolYaml(0), "apply", "-f", "-");
      assertThat(pool.ok()).as(pool.stderr()).isTrue();
      assertThat(world.sharedConversionUrls())
          .as("the shared CRDs convert through the server under rotation")
          .containsOnly(
              Map.entry(CertsWorld.SHARED_CRDS.get(0), "https://127.0.0.1:" + port + "/convert"),
              Map.entry(CertsWorld.SHARED_CRDS.get(1), "https://127.0.0.1:" + port + "/convert"));
      load.start();
      int target = 6;
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> load.ok() >= target && load.reads() >= target);
      X509Certificate oldLeaf = server.certificate().current();
      double convertedBefore = ConversionMetric.count(port, tmp.resolve("ca/ca.crt"), "success");
      int okBefore = load.ok();
      int readsBefore = load.reads();

      Files.copy(tmp.resolve("ca/ca.crt"), tmp.resolve("ca-before.crt"));
      List<String> rotate = new ArrayList<>(args);
      rotate.add("--rotate");
      CertsWorld.Run run = CertsWorld.run(rotate);

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out())
          .contains(
              "(replacing the certificate issued by the previous CA (the certificate's serial "
                  + dev.ironcore.maintenance.certs.Serials.hex(oldLeaf)
                  + ", the CA's "
                  + dev.ironcore.maintenance.certs.Serials.hex(
                      Pem.decodeCertificate(Files.readString(tmp.resolve("ca-before.crt"))))
                  + "))");
      X509Certificate ca = Pem.decodeCertificate(Files.readString(tmp.resolve("ca/ca.crt")));
      X509Certificate served = CertRotationApiServerTest.presentedAt(port);
      assertThat(served).isNotEqualTo(oldLeaf);
      assertThat(CaBundle.signedBy(served, ca)).isTrue();
      world.assertEveryCaBundleIs(ca);
      int after = load.ok() + 6;
      int readsAfter = load.reads() + 6;
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> load.ok() >= after && load.reads() >= readsAfter);
      int reads = load.reads() - readsBefore;
      double converted =
          ConversionMetric.count(port, tmp.resolve("ca/ca.crt"), "success") - convertedBefore;
      System.out.printf(
          "during and after the rotation: %d admission calls, %d conversion reads, %.0f"
              + " conversions answered by the server, %d failed calls%n",
          load.ok() - okBefore, reads, converted, load.failures().size());
      assertThat(load.failures()).isEmpty();
      // each read made the API server call /convert here (one read may have been in flight)
      assertThat(converted).isGreaterThanOrEqualTo(reads - 1.0);
      assertThat(ConversionMetric.count(port, tmp.resolve("ca/ca.crt"), "failure")).isZero();
    } finally {
      load.close();
      kubelet.shutdownNow();
      // the server keeps serving until the JVM exits: the shared CRDs now convert through it
      Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "certs-e2e-stop"));
    }
  }

  /** What the kubelet does for a mounted Secret: write its data when it changed. */
  private static void sync(ServingPairStore secret, FilePairStore mount) {
    Optional<ServingPairStore.StoredPair> want = secret.read();
    if (want.isPresent() && !want.equals(mount.read())) {
      mount.write(want.get().certificatePem(), want.get().privateKeyPem());
    }
  }
}

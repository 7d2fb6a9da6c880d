package dev.ironcore.maintenance.server.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.certs.CaBundle;
import dev.ironcore.maintenance.certs.Pem;
import dev.ironcore.maintenance.certs.install.CertsMain;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make certs} and {@code make rotate-certs} (the {@link CertsMain} CLI, in files mode as for
 * {@code make run}) against the real API server, with a webhook server that reads the PEM files and
 * a continuous stream of admission calls and conversion reads ({@link AdmissionLoad}: mutating and
 * validating applies, v1alpha1 GETs and LISTs of objects stored as v1alpha2) that must never fail.
 * The shared Machine and MachinePool CRDs convert through the server under rotation (checked by
 * their {@code clientConfig.url} and the server's conversion counter), and their caBundles are
 * rotated with the webhooks'.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CertRotationApiServerTest {
  @TempDir static Path tmp;

  static TestCluster cp;
  static CertsWorld world;
  static WebhookServer server;
  static AdmissionLoad load;
  static Path caDir;
  static Path servingDir;
  static int port;

  @BeforeAll
  static void setUp() {
    cp = TestClusters.shared();
    String id = "certs-e2e-" + UUID.randomUUID().toString().substring(0, 6);
    port = FreePorts.pick(1).get(0);
    world = CertsWorld.install(cp, id, baseUrl(), true);
    caDir = tmp.resolve("ca");
    servingDir = tmp.resolve("serving");

    // make certs on a fresh install: a new CA, the pair, every caBundle
    CertsWorld.Run first = CertsWorld.run(args());
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out()).contains(world.plainCrd() + ": no webhook conversion");

    server =
        new WebhookServer(
            WebhookServerConfig.of(servingDir.resolve("tls.crt"), servingDir.resolve("tls.key"))
                .withBindAddress("127.0.0.1")
                .withCertificateReloadInterval(Duration.ofMillis(500)));
    server.start(port);
    cp.kubectl("create", "namespace", id).orThrow();
    String label = CertsWorld.LABEL + ": " + id;
    load = new AdmissionLoad(cp, id, label, id + "-pool", 2);
    KubectlResult pool = cp.kubectlTool().runWithInput(load.poolYaml(0), "apply", "-f", "-");
    assertThat(pool.ok()).as(pool.stderr()).isTrue();
    await("webhooks called")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              KubectlResult r =
                  cp.kubectlTool()
                      .runWithInput(
                          load.machineYaml(99, 0),
                          "apply",
                          "--dry-run=server",
                          "-o",
                          "json",
                          "-f",
                          "-");
              return r.ok() && r.stdout().contains("machinepoollet.ironcore.dev/machine");
            });
    load.start();
  }

  @AfterAll
  static void tearDown() throws InterruptedException {
    if (load != null) {
      load.close();
    }
    // the server keeps serving until the JVM exits: the shared CRDs now convert through it
    if (server != null) {
      WebhookServer s = server;
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "certs-e2e-stop"));
    }
  }

  static List<String> args(String... extra) {
    List<String> a = new ArrayList<>(world.flags());
    a.add("--ca-dir=" + caDir);
    a.add("--serving-files=" + servingDir);
    a.add("--san=localhost");
    a.add("--san=127.0.0.1");
    a.add("--wait-timeout=120s");
    a.addAll(List.of(extra));
    return a;
  }

  @Test
  @Order(1)
  void certsAgainIsUpToDateAndChangesNothing() throws IOException {
    Map<String, String> before = world.caBundles();
    String pair = Files.readString(servingDir.resolve("tls.crt"));
    CertsWorld.Run again = CertsWorld.run(args());
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).contains("up to date");
    assertThat(world.caBundles()).isEqualTo(before);
    assertThat(Files.readString(servingDir.resolve("tls.crt"))).isEqualTo(pair);
    assertEveryBundleIsExactly(currentCa());
  }

  @Test
  @Order(2)
  void certsReissuingThePairUnderTheSameCaIsDoneOnceTheServerPresentsIt() throws Exception {
    X509Certificate ca = currentCa();
    X509Certificate before = presented();
    Map<String, String> bundles = world.caBundles();

    // a SAN the stored pair lacks: a new pair from the same CA, the caBundles untouched
    CertsWorld.Run reissue = CertsWorld.run(args("--san=extra.example.com"));

    assertThat(reissue.exitCode()).as(reissue.err()).isZero();
    assertThat(reissue.out())
        .contains(
            "issue a serving certificate",
            "wait until the running webhook server(s) present the new serving certificate",
            "127.0.0.1:" + port + " presents the new certificate",
            "done: serving certificate expires")
        .doesNotContain("drop every other CA");
    // "done" means served: a fresh handshake right after the run gets the file's certificate
    X509Certificate leaf = presented();
    assertThat(leaf).isNotEqualTo(before);
    assertThat(leaf)
        .isEqualTo(Pem.decodeCertificate(Files.readString(servingDir.resolve("tls.crt"))));
    assertThat(CaBundle.signedBy(leaf, ca)).isTrue();
    assertThat(world.caBundles()).isEqualTo(bundles);
  }

  @Test
  @Order(3)
  void rotationUnderAdmissionLoadFailsNoCallAndNewHandshakesPresentTheNewCertificate()
      throws Exception {
    X509Certificate oldCa = currentCa();
    X509Certificate oldLeaf = presented();
    assertThat(world.sharedConversionUrls())
        .as("the shared CRDs convert through the server under rotation")
        .containsOnly(
            Map.entry(CertsWorld.SHARED_CRDS.get(0), baseUrl() + "/convert"),
            Map.entry(CertsWorld.SHARED_CRDS.get(1), baseUrl() + "/convert"));
    awaitMoreCalls(10);
    double convertedBefore = ConversionMetric.count(port, caDir.resolve("ca.crt"), "success");
    int okBefore = load.ok();
    int readsBefore = load.reads();

    CertsWorld.Run rotation = CertsWorld.run(args("--rotate"));

    assertThat(rotation.exitCode()).as(rotation.err()).isZero();
    assertThat(rotation.out())
        .contains("[1/", "presents the new certificate", "done: serving certificate expires");
    X509Certificate newCa = currentCa();
    assertThat(newCa).isNotEqualTo(oldCa);
    assertEveryBundleIsExactly(newCa);
    X509Certificate leaf = presented(); // a fresh handshake, same server instance
    assertThat(leaf).isNotEqualTo(oldLeaf);
    assertThat(CaBundle.signedBy(leaf, newCa)).isTrue();
    assertThat(leaf)
        .isEqualTo(Pem.decodeCertificate(Files.readString(servingDir.resolve("tls.crt"))));
    awaitMoreCalls(10);
    int reads = load.reads() - readsBefore;
    double converted =
        ConversionMetric.count(port, caDir.resolve("ca.crt"), "success") - convertedBefore;
    System.out.printf(
        "during and after the rotation: %d admission calls, %d conversion reads, %.0f conversions"
            + " answered by the server, %d failed calls%n",
        load.ok() - okBefore, reads, converted, load.failures().size());
    assertThat(load.failures()).isEmpty();
    assertThat(reads).as("conversion reads during the rotation").isPositive();
    // each read made the API server call /convert here (one read may have been in flight)
    assertThat(converted).isGreaterThanOrEqualTo(reads - 1.0);
    assertThat(ConversionMetric.count(port, caDir.resolve("ca.crt"), "failure")).isZero();
  }

  @Test
  @Order(4)
  void rotationKilledAfterEachStepCompletesWhenRunAgain() throws Exception {
    for (int killAt = 2; killAt <= 6; killAt++) {
      X509Certificate before = currentCa();
      Process p =
          new ProcessBuilder(childCommand(args("--rotate"))).redirectErrorStream(true).start();
      boolean killed = false;
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          System.out.println("child: " + line);
          if (line.startsWith("[" + killAt + "/")) {
            p.destroyForcibly(); // SIGKILL, no clean-up
            killed = true;
            break;
          }
        }
      }
      p.waitFor();
      assertThat(killed).as("rotation reached step " + killAt).isTrue();

      boolean underWay = Files.exists(caDir.resolve("ca-next.crt"));
      // only the last step (two file renames) can finish between its line and the SIGKILL
      assertThat(underWay || killAt == 6)
          .as("rotation under way after a kill at " + killAt)
          .isTrue();
      CertsWorld.Run resumed = CertsWorld.run(args("--rotate"));
      assertThat(resumed.exitCode()).as(resumed.err()).isZero();
      if (underWay) {
        assertThat(resumed.out()).contains("resuming the rotation");
      }
      X509Certificate after = currentCa();
      assertThat(after).isNotEqualTo(before);
      assertEveryBundleIsExactly(after);
      assertThat(Files.exists(caDir.resolve("ca-next.crt"))).isFalse();
      await("server presents the final pair")
          .atMost(Duration.ofSeconds(30))
          .until(() -> CaBundle.signedBy(presented(), after));
      awaitMoreCalls(4);
      assertThat(load.failures())
          .as("failed admission calls after a kill before step " + killAt)
          .isEmpty();
    }
  }

  @Test
  @Order(5)
  void dryRunPrintsThePlanAndChangesNothing() throws IOException {
    Map<String, String> before = world.caBundles();
    String pair = Files.readString(servingDir.resolve("tls.crt"));
    CertsWorld.Run dry = CertsWorld.run(args("--rotate", "--dry-run"));
    assertThat(dry.exitCode()).isZero();
    assertThat(dry.out()).contains("plan (DRY_RUN", "add the CA to", "drop every other CA");
    assertThat(world.caBundles()).isEqualTo(before);
    assertThat(Files.readString(servingDir.resolve("tls.crt"))).isEqualTo(pair);
    assertThat(Files.exists(caDir.resolve("ca-next.crt"))).isFalse();
  }

  private static void awaitMoreCalls(int n) {
    int target = load.ok() + n;
    int reads = load.reads() + n;
    await("admission calls and conversion reads")
        .atMost(Duration.ofSeconds(120))
        .until(() -> load.ok() >= target && load.reads() >= reads);
  }

  private static String baseUrl() {
    return "https://127.0.0.1:" + port;
  }

  private static X509Certificate currentCa() throws IOException {
    return Pem.decodeCertificate(Files.readString(caDir.resolve("ca.crt")));
  }

  private static void assertEveryBundleIsExactly(X509Certificate ca) {
    world.assertEveryCaBundleIs(ca);
  }

  /** The leaf the server presents in a fresh TLS handshake. */
  static X509Certificate presented() throws Exception {
    return presentedAt(port);
  }

  /** The leaf the server on {@code 127.0.0.1:port} presents in a fresh TLS handshake. */
  static X509Certificate presentedAt(int port) throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(
        null,
        new TrustManager[] {
          new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] c, String a) {}

            @Override
            public void checkServerTrusted(X509Certificate[] c, String a) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
              return new X509Certificate[0];
            }
          }
        },
        null);
    try (Socket raw = new Socket("127.0.0.1", port);
        SSLSocket s =
            (SSLSocket) ctx.getSocketFactory().createSocket(raw, "127.0.0.1", port, true)) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  private static List<String> childCommand(List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(CertsMain.class.getName());
    cmd.addAll(args);
    return cmd;
  }
}

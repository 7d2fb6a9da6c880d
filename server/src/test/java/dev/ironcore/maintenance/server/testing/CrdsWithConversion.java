package dev.ironcore.maintenance.server.testing;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.IssuedCertificate;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.WebhookInstaller;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Installs overlays (by default {@code manifests/crds} and {@code manifests/capi-local}) with the
 * CRDs' conversion webhook pointed at a real {@link WebhookServer} started once per JVM (the API
 * server stores v1alpha2 and calls {@code /convert} for every v1alpha1 read and write). One server
 * serves every cluster it is installed into. No admission webhooks are installed: the controller
 * and devtools tests (which use this class through the server module's test-jar) act as the
 * webhooks would where they need to.
 */
public final class CrdsWithConversion {
  private static WebhookServer server;
  private static String caPem;

  private CrdsWithConversion() {}

  /** {@code manifests/crds} and {@code manifests/capi-local} into {@code cp}. */
  public static WebhookServer install(TestCluster cp) {
    return install(cp, "crds", "capi-local");
  }

  /**
   * @param cp where to install (the first call's cluster also chooses the server's port)
   * @param overlays names under {@code manifests/}
   * @return the running conversion server
   */
  public static synchronized WebhookServer install(TestCluster cp, String... overlays) {
    if (server == null) {
      start(cp);
    }
    String base = "https://" + cp.webhookHost() + ":" + server.port();
    for (String overlay : overlays) {
      WebhookInstaller.install(cp, ManifestPaths.overlay(overlay), base, caPem);
    }
    return server;
  }

  private static void start(TestCluster cp) {
    Path dir = TempDirs.create("conversion-certs");
    CertificateAuthority ca =
        CertificateAuthority.generate("conversion-test-ca", Duration.ofHours(6));
    IssuedCertificate serving =
        ca.issueServing(
            "conversion-test",
            List.of("localhost", "host.testcontainers.internal"),
            List.of("127.0.0.1"),
            Duration.ofHours(6));
    serving.writeTo(dir.resolve("tls.crt"), dir.resolve("tls.key"));
    WebhookServer started =
        new WebhookServer(
            WebhookServerConfig.of(dir.resolve("tls.crt"), dir.resolve("tls.key"))
                .withBindAddress("127.0.0.1"));
    started.start(cp.webhookPort());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  started.stop();
                  TempDirs.delete(dir);
                },
                "conversion-stop"));
    caPem = ca.certificatePem();
    server = started;
  }
}

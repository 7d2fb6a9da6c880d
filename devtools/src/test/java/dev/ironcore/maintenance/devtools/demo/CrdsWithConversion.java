package dev.ironcore.maintenance.devtools.demo;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.IssuedCertificate;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.WebhookServerConfig;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.WebhookInstaller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Installs {@code manifests/crds} and {@code manifests/capi-local} once per JVM with the CRDs'
 * conversion webhook pointed at a real {@link WebhookServer} started here (the API server stores
 * v1alpha2 and calls {@code /convert} for every v1alpha1 read and write). No admission webhooks are
 * installed: the demo writes what the webhooks would add. (Same as the controller tests' helper of
 * this name; test classes are not shared between modules.)
 */
final class CrdsWithConversion {
  private static WebhookServer server;

  private CrdsWithConversion() {}

  /**
   * @param cp the shared cluster
   * @return the running conversion server
   */
  static synchronized WebhookServer install(TestCluster cp) {
    if (server != null) {
      return server;
    }
    try {
      Path dir = Files.createTempDirectory("conversion-certs");
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
      int port = started.start(cp.webhookPort());
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "conversion-stop"));
      String base = "https://" + cp.webhookHost() + ":" + port;
      for (String overlay : List.of("crds", "capi-local")) {
        WebhookInstaller.install(cp, ManifestPaths.overlay(overlay), base, ca.certificatePem());
      }
      server = started;
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

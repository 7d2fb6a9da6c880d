package dev.ironcore.maintenance.server.tls;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.IssuedCertificate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A fresh CA and a serving certificate for {@code localhost}/{@code 127.0.0.1} written as PEM files
 * into a directory, for tests.
 *
 * @param ca the CA (its PEM is the caBundle)
 * @param certFile serving certificate PEM
 * @param keyFile serving key PEM
 * @param caFile CA certificate PEM
 */
public record TestCertificates(CertificateAuthority ca, Path certFile, Path keyFile, Path caFile) {

  /**
   * Creates the CA and writes {@code tls.crt}, {@code tls.key} and {@code ca.crt} into {@code dir}.
   */
  public static TestCertificates create(Path dir) {
    CertificateAuthority ca = CertificateAuthority.generate("webhook-test-ca", Duration.ofHours(1));
    TestCertificates certs =
        new TestCertificates(
            ca, dir.resolve("tls.crt"), dir.resolve("tls.key"), dir.resolve("ca.crt"));
    certs.issueServing("webhook-test").writeTo(certs.certFile, certs.keyFile);
    IssuedCertificate caOnly = new IssuedCertificate(ca.certificatePem(), ca.privateKeyPem());
    caOnly.writeTo(certs.caFile, dir.resolve("ca.key"));
    return certs;
  }

  /**
   * Issues another serving certificate from the same CA for {@code localhost}, {@code 127.0.0.1}
   * and {@code host.testcontainers.internal} (how k3s in a container reaches this machine).
   */
  public IssuedCertificate issueServing(String commonName) {
    return ca.issueServing(
        commonName,
        List.of("localhost", "host.testcontainers.internal"),
        List.of("127.0.0.1"),
        Duration.ofHours(1));
  }
}

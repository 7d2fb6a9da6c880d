package dev.ironcore.maintenance.testkit.faults;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.IssuedCertificate;
import dev.ironcore.maintenance.certs.PemKeyStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The TLS identity a {@link FaultProxy} serves with (a CA of its own and a serving certificate for
 * {@code 127.0.0.1} and {@code localhost}, BouncyCastle through the certs module, valid one day)
 * and the kubeconfig that points a client at the proxy.
 */
final class ProxyIdentity {
  private static final Duration VALIDITY = Duration.ofDays(1);

  private final CertificateAuthority ca;
  private final IssuedCertificate serving;

  private ProxyIdentity(CertificateAuthority ca, IssuedCertificate serving) {
    this.ca = ca;
    this.serving = serving;
  }

  static ProxyIdentity generate() {
    CertificateAuthority ca = CertificateAuthority.generate("fault-proxy-ca", VALIDITY);
    return new ProxyIdentity(
        ca, ca.issueServing("fault-proxy", List.of("localhost"), List.of("127.0.0.1"), VALIDITY));
  }

  /** The server-side TLS context (serving certificate and key; no client authentication). */
  SSLContext serverTls() {
    try {
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(
          PemKeyStores.fromPem(
              serving.certificatePem(),
              serving.privateKeyPem(),
              PemKeyStores.DEFAULT_PASSWORD,
              "proxy certificate",
              "proxy key"),
          PemKeyStores.DEFAULT_PASSWORD);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(kmf.getKeyManagers(), null, null);
      return tls;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build the proxy's TLS context", e);
    }
  }

  /**
   * Writes a kubeconfig for {@code server} that trusts this proxy's CA and carries no credentials
   * (the proxy forwards as the upstream admin whatever the client presents).
   *
   * @throws UncheckedIOException if it cannot be written
   */
  void writeKubeconfig(Path file, String server) {
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: fault-proxy
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: fault-proxy
          user: {}
        contexts:
        - name: fault-proxy
          context:
            cluster: fault-proxy
            user: fault-proxy
            namespace: default
        current-context: fault-proxy
        preferences: {}
        """
            .formatted(
                server,
                Base64.getEncoder()
                    .encodeToString(ca.certificatePem().getBytes(StandardCharsets.UTF_8)));
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}

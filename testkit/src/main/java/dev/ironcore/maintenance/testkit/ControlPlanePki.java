package dev.ironcore.maintenance.testkit;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.KeyPairs;
import dev.ironcore.maintenance.certs.Pem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;

/**
 * Key material of one local control plane, as PEM files in one directory: a CA, the API server's
 * serving certificate, an admin client certificate (CN admin, O system:masters) and an RSA 2048
 * service-account signing key pair. Everything is valid for 30 days.
 */
record ControlPlanePki(Path dir) {

  private static final Duration VALIDITY = Duration.ofDays(30);

  /** Generates everything anew into {@code dir} (created if missing). */
  static ControlPlanePki create(Path dir) {
    ControlPlanePki pki = new ControlPlanePki(dir);
    CertificateAuthority ca = CertificateAuthority.generate("local-control-plane-ca", VALIDITY);
    ca.writeTo(pki.caCert(), dir.resolve("ca.key"));
    ca.issueServing(
            "kube-apiserver",
            List.of(
                "localhost",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local"),
            List.of("127.0.0.1", "10.0.0.1"),
            VALIDITY)
        .writeTo(pki.servingCert(), pki.servingKey());
    ca.issueClient("admin", List.of("system:masters"), VALIDITY)
        .writeTo(pki.adminCert(), pki.adminKey());
    KeyPair sa = KeyPairs.rsa2048();
    try {
      Files.writeString(pki.serviceAccountKey(), Pem.encode(sa.getPrivate()));
      Files.writeString(pki.serviceAccountPublicKey(), Pem.encode(sa.getPublic()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write service-account keys to " + dir, e);
    }
    return pki;
  }

  Path caCert() {
    return dir.resolve("ca.crt");
  }

  Path servingCert() {
    return dir.resolve("apiserver.crt");
  }

  Path servingKey() {
    return dir.resolve("apiserver.key");
  }

  Path adminCert() {
    return dir.resolve("admin.crt");
  }

  Path adminKey() {
    return dir.resolve("admin.key");
  }

  Path serviceAccountKey() {
    return dir.resolve("sa.key");
  }

  Path serviceAccountPublicKey() {
    return dir.resolve("sa.pub");
  }
}

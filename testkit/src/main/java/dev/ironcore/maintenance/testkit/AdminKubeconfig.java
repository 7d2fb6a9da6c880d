package dev.ironcore.maintenance.testkit;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/** Renders a single-context kubeconfig with embedded certificate data. */
final class AdminKubeconfig {

  private AdminKubeconfig() {}

  /**
   * @param server e.g. {@code https://127.0.0.1:6443}
   * @param caPem cluster CA certificate PEM
   * @param clientCertPem client certificate PEM
   * @param clientKeyPem client key PEM
   * @return kubeconfig YAML with cluster, user and context named {@code local}
   */
  static String render(String server, String caPem, String clientCertPem, String clientKeyPem) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: admin
          user:
            client-certificate-data: %s
            client-key-data: %s
        contexts:
        - name: local
          context:
            cluster: local
            user: admin
            namespace: default
        current-context: local
        preferences: {}
        """
        .formatted(server, b64(caPem), b64(clientCertPem), b64(traditionalEcKey(clientKeyPem)));
  }

  /**
   * Rewrites a PKCS#8 EC key as SEC1 ({@code BEGIN EC PRIVATE KEY}): fabric8's kubeconfig loader
   * takes a PKCS#8 key for RSA and fails with "Invalid DER: object is not integer", while kubectl
   * reads both. Other keys are returned unchanged.
   */
  static String traditionalEcKey(String keyPem) {
    try (PEMParser parser = new PEMParser(new StringReader(keyPem))) {
      Object o = parser.readObject();
      PrivateKeyInfo info = o instanceof PrivateKeyInfo pki ? pki
          : o instanceof PEMKeyPair pair ? pair.getPrivateKeyInfo() : null;
      if (info == null || !X9ObjectIdentifiers.id_ecPublicKey.equals(info.getPrivateKeyAlgorithm().getAlgorithm())) {
        return keyPem;
      }
      StringWriter out = new StringWriter();
      try (PemWriter writer = new PemWriter(out)) {
        // SEC1 with the curve named inside (Go's x509.ParseECPrivateKey needs it; PKCS#8 keeps it outside)
        ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
        ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
        int bits = inner.getKey().bitLength() <= 256 ? 256 : inner.getKey().bitLength();
        ECPrivateKey sec1 = inner.getPublicKey() == null
            ? new ECPrivateKey(bits, inner.getKey(), curve)
            : new ECPrivateKey(bits, inner.getKey(), inner.getPublicKey(), curve);
        writer.writeObject(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
      }
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the client key", e);
    }
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

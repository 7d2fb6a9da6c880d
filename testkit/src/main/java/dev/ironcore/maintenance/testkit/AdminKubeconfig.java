package dev.ironcore.maintenance.testkit;

import dev.ironcore.maintenance.certs.Pem;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.util.Base64;

/** Renders a single-context kubeconfig with embedded certificate data. */
final class AdminKubeconfig {

  private AdminKubeconfig() {}

  /**
   * @param server e.g. {@code https://127.0.0.1:6443}
   * @param caPem cluster CA certificate PEM
   * @param clientCertPem client certificate PEM
   * @param clientKeyPem client key PEM (any form {@link Pem#decodePrivateKey} reads)
   * @return kubeconfig YAML with cluster, user and context named {@code local}; an EC client key is
   *     embedded as SEC1 because fabric8's kubeconfig loader reads PKCS#8 only for RSA keys
   *     ("Invalid DER: object is not integer"), while kubectl reads both
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
        .formatted(server, b64(caPem), b64(clientCertPem), b64(kubeconfigKey(clientKeyPem)));
  }

  private static String kubeconfigKey(String keyPem) {
    PrivateKey key = Pem.decodePrivateKey(keyPem);
    return "EC".equals(key.getAlgorithm()) ? Pem.encodeSec1(key) : Pem.encode(key);
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

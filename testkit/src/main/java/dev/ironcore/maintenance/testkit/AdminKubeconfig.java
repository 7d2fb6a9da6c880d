package dev.ironcore.maintenance.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

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
        .formatted(server, b64(caPem), b64(clientCertPem), b64(clientKeyPem));
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

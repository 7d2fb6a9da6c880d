package dev.ironcore.maintenance.testkit.faults;

import dev.ironcore.maintenance.certs.PemKeyStores;
import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Where and as whom a {@link FaultProxy} forwards: the API server of an admin kubeconfig, with its
 * CA, client certificate and key (or bearer token).
 *
 * @param server the API server's base URI, e.g. {@code https://127.0.0.1:41235}
 * @param tls trusts the kubeconfig's CA and presents its client certificate, if it has one
 * @param bearerToken the kubeconfig's token, or null
 */
record Upstream(URI server, SSLContext tls, String bearerToken) {

  /**
   * Reads {@code kubeconfig} (its current context; certificate data embedded or as files).
   *
   * @throws UncheckedIOException if it cannot be read
   * @throws IllegalArgumentException if it names no CA or its certificate and key do not match
   */
  static Upstream fromKubeconfig(Path kubeconfig) {
    Config config;
    try {
      config = Config.fromKubeconfig(Files.readString(kubeconfig));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + kubeconfig, e);
    }
    String ca = pem(config.getCaCertData(), config.getCaCertFile());
    if (ca == null) {
      throw new IllegalArgumentException(kubeconfig + " names no certificate authority");
    }
    String cert = pem(config.getClientCertData(), config.getClientCertFile());
    String key = pem(config.getClientKeyData(), config.getClientKeyFile());
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      int i = 0;
      for (var c : dev.ironcore.maintenance.certs.Pem.decodeCertificates(ca)) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      KeyManagerFactory kmf = null;
      if (cert != null && key != null) {
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(
            PemKeyStores.fromPem(
                cert, key, PemKeyStores.DEFAULT_PASSWORD, "client certificate", "client key"),
            PemKeyStores.DEFAULT_PASSWORD);
      }
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      String server = config.getMasterUrl().replaceAll("/+$", "");
      return new Upstream(URI.create(server), tls, config.getAutoOAuthToken());
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build TLS context from " + kubeconfig, e);
    }
  }

  private static String pem(String base64Data, String file) {
    if (base64Data != null && !base64Data.isBlank()) {
      return new String(Base64.getMimeDecoder().decode(base64Data), StandardCharsets.UTF_8);
    }
    if (file != null && !file.isBlank()) {
      try {
        return Files.readString(Path.of(file));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
    }
    return null;
  }
}

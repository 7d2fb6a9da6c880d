package dev.ironcore.maintenance.api.client;

import dev.ironcore.maintenance.api.tls.CipherSuites;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.net.http.HttpClient;
import java.util.List;
import javax.net.ssl.SSLParameters;

/**
 * fabric8 on the JDK's own HTTP client ({@code java.net.http}: far fewer classes and no buffer
 * pools of its own, unlike the default Vert.x/Netty transport), offering the TLS cipher suites in
 * {@link CipherSuites#PREFERRED}'s order, so that kube-apiserver answers with ChaCha20-Poly1305:
 * with the shipped C1-only JVM, decrypting a 10,000-Machine LIST with AES-GCM took about half of
 * the controller's CPU while its caches synced ({@code make bench}). The TLS versions stay the ones
 * fabric8 takes from the client {@link Config} (default TLS 1.3 and 1.2).
 *
 * <p>One factory per client: it remembers the TLS versions of the config it last built for.
 */
public final class KubeHttpClientFactory extends JdkHttpClientFactory {
  private volatile List<TlsVersion> tlsVersions = List.of(TlsVersion.TLS_1_3, TlsVersion.TLS_1_2);

  @Override
  public io.fabric8.kubernetes.client.http.HttpClient.Builder newBuilder(Config config) {
    if (config != null && config.getTlsVersions() != null && config.getTlsVersions().length > 0) {
      tlsVersions = List.of(config.getTlsVersions());
    }
    return super.newBuilder(config);
  }

  /** Called by fabric8 last, after it set its own SSL parameters: ours replace them. */
  @Override
  protected void additionalConfig(HttpClient.Builder builder) {
    builder.sslParameters(sslParameters(tlsVersions));
  }

  /**
   * The SSL parameters of every connection: {@link CipherSuites#PREFERRED} in that order, the given
   * TLS versions.
   */
  static SSLParameters sslParameters(List<TlsVersion> versions) {
    return new SSLParameters(
        CipherSuites.PREFERRED.toArray(String[]::new),
        versions.stream().map(TlsVersion::javaName).toArray(String[]::new));
  }
}

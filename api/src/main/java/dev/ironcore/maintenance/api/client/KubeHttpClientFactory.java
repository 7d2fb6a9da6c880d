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
 * <p>A kubeconfig's client key is put into an in-memory PKCS#12 key store protected with one
 * key-derivation iteration instead of the JDK's 10,000 ({@link #KEY_PBE_ITERATIONS}).
 *
 * <p>On a JDK before 24, whose HTTP client fails a request on an HTTP/2 connection that got GOAWAY
 * even when its answer is on the way, such a request is sent once more over HTTP/1.1 ({@link
 * GoawayResend}): kube-apiserver ends the connection of a request with wrong or no credentials with
 * GOAWAY, and its 401 or 403 reached fabric8 only as {@code GOAWAY received}, after 22 s of
 * retries.
 *
 * <p>One factory per client: it remembers the TLS versions of the config it last built for.
 */
public final class KubeHttpClientFactory extends JdkHttpClientFactory {
  private volatile List<TlsVersion> tlsVersions = List.of(TlsVersion.TLS_1_3, TlsVersion.TLS_1_2);

  /**
   * The JDK's property for the iterations of PKCS#12 key protection (default 10,000), which this
   * factory sets to 1 before fabric8 builds a client's key managers, unless the JVM was given a
   * value ({@code -Dkeystore.pkcs12.keyPbeIterationCount=N}). fabric8 puts a kubeconfig's client
   * key (client-certificate authentication) into a PKCS#12 store that lives in memory only, under a
   * password it knows; the iterations protect nothing there. Run twice on a JVM still interpreting
   * (storing the key, then the key manager reading it) they took about 0.13 s of the controller's
   * start (one-off starts with the shipped flags: ready 1,010-1,140 -> 870-1,020 ms against a local
   * kube-apiserver). No process of ours writes a PKCS#12 store anywhere. In a cluster the processes
   * authenticate with their service account token: no key store is made.
   */
  public static final String KEY_PBE_ITERATIONS = "keystore.pkcs12.keyPbeIterationCount";

  @Override
  public io.fabric8.kubernetes.client.http.HttpClient.Builder newBuilder(Config config) {
    if (System.getProperty(KEY_PBE_ITERATIONS) == null) {
      System.setProperty(KEY_PBE_ITERATIONS, "1");
    }
    if (config != null && config.getTlsVersions() != null && config.getTlsVersions().length > 0) {
      tlsVersions = List.of(config.getTlsVersions());
    }
    return super.newBuilder(config);
  }

  /** The JDK's client builder, wrapped by {@link GoawayResend} on a JDK that needs it. */
  @Override
  protected HttpClient.Builder createNewHttpClientBuilder() {
    HttpClient.Builder builder = super.createNewHttpClientBuilder();
    return GoawayResend.needed(Runtime.version().feature()) ? GoawayResend.wrap(builder) : builder;
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

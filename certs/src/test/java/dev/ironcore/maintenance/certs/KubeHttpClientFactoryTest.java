package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.client.KubeHttpClientFactory;
import dev.ironcore.maintenance.api.json.JsonMappers;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.bouncycastle.asn1.pkcs.ContentInfo;
import org.bouncycastle.asn1.pkcs.PBES2Parameters;
import org.bouncycastle.asn1.pkcs.PBKDF2Params;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.pkcs.PKCS12PfxPdu;
import org.bouncycastle.pkcs.PKCS12SafeBag;
import org.bouncycastle.pkcs.PKCS12SafeBagFactory;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes client's TLS offer, seen by a real TLS server that lets the client's preference
 * decide (as Go's {@code crypto/tls}, kube-apiserver's, does between ChaCha20 and AES-GCM).
 */
class KubeHttpClientFactoryTest {
  @TempDir static Path dir;

  @BeforeAll
  static void certificates() {
    GenerateCerts.run(dir, "apiserver", "default", Duration.ofDays(1));
  }

  @Test
  void offersChaCha20FirstSoThatTheServerPicksIt() throws Exception {
    SSLSession session = sessionOf(new KubeHttpClientFactory(), null);
    assertThat(session.getProtocol()).isEqualTo("TLSv1.3");
    assertThat(session.getCipherSuite()).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
  }

  @Test
  void fabric8sOwnJdkClientWouldGetAesGcm() throws Exception {
    // the control: without our factory the same server negotiates AES-GCM
    assertThat(sessionOf(new JdkHttpClientFactory(), null).getCipherSuite()).contains("AES");
  }

  @Test
  void keepsTheTlsVersionsOfTheConfig() throws Exception {
    SSLSession session =
        sessionOf(new KubeHttpClientFactory(), new TlsVersion[] {TlsVersion.TLS_1_2});
    assertThat(session.getProtocol()).isEqualTo("TLSv1.2");
    assertThat(session.getCipherSuite()).isEqualTo("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");
  }

  /**
   * fabric8 keeps a kubeconfig's client key in an in-memory PKCS#12 store: once our factory built a
   * client, such a store protects its key with one key-derivation iteration (read back from the
   * store's bytes), not the JDK's 10,000; a value the JVM was given is kept.
   */
  @Test
  void inMemoryKeyStoresProtectKeysWithOneIterationUnlessTheJvmWasToldOtherwise() throws Exception {
    String given = System.getProperty(KubeHttpClientFactory.KEY_PBE_ITERATIONS);
    try {
      System.clearProperty(KubeHttpClientFactory.KEY_PBE_ITERATIONS);
      assertThat(keyPbeIterations()).as("the JDK's default").isEqualTo(10_000);
      new KubeHttpClientFactory().newBuilder(Config.empty());
      assertThat(keyPbeIterations()).isEqualTo(1);

      System.setProperty(KubeHttpClientFactory.KEY_PBE_ITERATIONS, "2048");
      new KubeHttpClientFactory().newBuilder(Config.empty());
      assertThat(keyPbeIterations()).isEqualTo(2048);
    } finally {
      if (given == null) {
        System.clearProperty(KubeHttpClientFactory.KEY_PBE_ITERATIONS);
      } else {
        System.setProperty(KubeHttpClientFactory.KEY_PBE_ITERATIONS, given);
      }
    }
  }

  /** The PBKDF2 iterations a new PKCS#12 store protects a private key entry with. */
  private static int keyPbeIterations() throws Exception {
    IssuedCertificate leaf =
        CertificateAuthority.generate("iterations", Duration.ofHours(1))
            .issueServing("localhost", List.of(), List.of(), Duration.ofHours(1));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] password = "changeit".toCharArray();
    store.setKeyEntry(
        "client", leaf.privateKey(), password, new Certificate[] {leaf.certificate()});
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    store.store(bytes, password);
    for (ContentInfo info : new PKCS12PfxPdu(bytes.toByteArray()).getContentInfos()) {
      if (!info.getContentType().equals(PKCSObjectIdentifiers.data)) {
        continue; // the certificates' encrypted bag
      }
      for (PKCS12SafeBag bag : new PKCS12SafeBagFactory(info).getSafeBags()) {
        if (bag.getBagValue() instanceof PKCS8EncryptedPrivateKeyInfo key) {
          PBES2Parameters pbes2 =
              PBES2Parameters.getInstance(key.getEncryptionAlgorithm().getParameters());
          return PBKDF2Params.getInstance(pbes2.getKeyDerivationFunc().getParameters())
              .getIterationCount()
              .intValueExact();
        }
      }
    }
    throw new AssertionError("no shrouded key bag in the PKCS#12 store");
  }

  /** One request of a fabric8 client on {@code factory}; the session the server negotiated. */
  private static SSLSession sessionOf(HttpClient.Factory factory, TlsVersion[] versions)
      throws Exception {
    try (SSLServerSocket server =
        (SSLServerSocket)
            SslContexts.of(dir.resolve("tls.crt"), dir.resolve("tls.key"), null)
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      SSLParameters params = server.getSSLParameters();
      params.setUseCipherSuitesOrder(false); // the client's order decides
      server.setSSLParameters(params);
      CompletableFuture<SSLSession> negotiated =
          CompletableFuture.supplyAsync(
              () -> {
                try (SSLSocket s = (SSLSocket) server.accept()) {
                  SSLSession session = s.getSession();
                  byte[] request = new byte[4096];
                  s.getInputStream().read(request);
                  OutputStream out = s.getOutputStream();
                  out.write(
                      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                          .getBytes(StandardCharsets.US_ASCII));
                  out.flush();
                  return session;
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      ConfigBuilder config =
          new ConfigBuilder(Config.empty())
              .withMasterUrl("https://127.0.0.1:" + server.getLocalPort())
              .withCaCertFile(dir.resolve("ca.crt").toString())
              .withRequestRetryBackoffLimit(0);
      if (versions != null) {
        config.withTlsVersions(versions);
      }
      try (KubernetesClient client =
          JsonMappers.clientBuilder()
              .withHttpClientFactory(factory)
              .withConfig(config.build())
              .build()) {
        assertThat(client.raw("/healthz")).isEqualTo("ok");
      }
      return negotiated.get(10, TimeUnit.SECONDS);
    }
  }
}

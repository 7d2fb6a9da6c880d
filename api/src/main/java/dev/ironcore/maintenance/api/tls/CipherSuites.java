package dev.ironcore.maintenance.api.tls;

import java.util.List;

/**
 * The TLS cipher suites both processes use, most preferred first: the webhook server accepts only
 * these and picks in this order (Jetty's {@code useCipherSuitesOrder}); the Kubernetes clients of
 * both processes offer them in this order ({@code api.client.KubeHttpClientFactory}), and Go's
 * {@code crypto/tls} in kube-apiserver then answers with ChaCha20-Poly1305 (a Go server prefers
 * AES-GCM only when the client lists it before ChaCha20).
 *
 * <p>The set is the one Kubernetes and Go consider secure (only AEAD suites with forward secrecy,
 * as Go's {@code crypto/tls} defaults). ChaCha20-Poly1305 comes first because the shipped JVM
 * settings compile with C1 only ({@code -XX:TieredStopAtLevel=1}, for memory and start-up), and the
 * JDK's AES-GCM is fast only through C2's AES-NI/CLMUL intrinsics: under C1 its GHASH runs as plain
 * Java. It took about three quarters of the webhook server's CPU per review (ChaCha20-Poly1305:
 * about a third of that) and about half of the controller's CPU while it listed 10,000 Machines
 * ({@code make bench}). Every TLS 1.3 peer supports both; a peer without ChaCha20 gets AES-GCM.
 *
 * <p>The webhook server serves TLS with Conscrypt (BoringSSL) where its native library loads
 * ({@code server.tls.TlsProvider}): there the list limits the TLS 1.2 suites and their order, while
 * TLS 1.3 suites are BoringSSL's (all three above, the client's preference first; native AES-GCM is
 * fast).
 */
public final class CipherSuites {
  private CipherSuites() {}

  /** JSSE names, most preferred first: TLS 1.3 suites, then TLS 1.2 ECDHE AEAD suites. */
  public static final List<String> PREFERRED =
      List.of(
          "TLS_CHACHA20_POLY1305_SHA256",
          "TLS_AES_128_GCM_SHA256",
          "TLS_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
}

package dev.ironcore.maintenance.server.tls;

import java.util.List;

/**
 * The TLS cipher suites the webhook server accepts, in the order it prefers them (the server picks,
 * Jetty's {@code useCipherSuitesOrder}). The set is the one Kubernetes and Go consider secure (only
 * AEAD suites with forward secrecy, as Go's {@code crypto/tls} defaults); the order puts
 * ChaCha20-Poly1305 first because the shipped JVM settings compile with C1 only ({@code
 * -XX:TieredStopAtLevel=1}, for memory and start-up), and the JDK's AES-GCM is fast only through
 * C2's AES-NI/CLMUL intrinsics: under C1 its GHASH runs as plain Java and took about three quarters
 * of the server's CPU per review, ChaCha20-Poly1305 about a third of that ({@code make bench}).
 * Every client that speaks TLS 1.3 (kube-apiserver's Go client among them) supports both.
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

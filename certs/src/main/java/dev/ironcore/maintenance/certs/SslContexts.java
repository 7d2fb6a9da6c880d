package dev.ironcore.maintenance.certs;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** TLS contexts from PEM files, e.g. for test clients of the webhook server. */
public final class SslContexts {

  private SslContexts() {}

  /**
   * A TLS context that presents {@code certPem}/{@code keyPem} (server or client identity) and,
   * when {@code caPem} is not null, trusts only the certificates in it (otherwise the JVM
   * defaults).
   */
  public static SSLContext of(Path certPem, Path keyPem, Path caPem) {
    return build(
        PemKeyStores.load(certPem, keyPem), caPem == null ? null : PemKeyStores.loadTrust(caPem));
  }

  /** A client TLS context that trusts only the certificates in {@code caPem} and presents none. */
  public static SSLContext trusting(Path caPem) {
    return build(null, PemKeyStores.loadTrust(caPem));
  }

  private static SSLContext build(KeyStore keys, KeyStore trust) {
    try {
      KeyManagerFactory kmf = null;
      if (keys != null) {
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PemKeyStores.DEFAULT_PASSWORD);
      }
      TrustManagerFactory tmf = null;
      if (trust != null) {
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(
          kmf == null ? null : kmf.getKeyManagers(),
          tmf == null ? null : tmf.getTrustManagers(),
          null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build TLS context", e);
    }
  }
}

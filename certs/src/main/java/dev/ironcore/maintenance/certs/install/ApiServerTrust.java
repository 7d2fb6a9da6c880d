package dev.ironcore.maintenance.certs.install;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A TLS client's trust as kube-apiserver's when it calls a webhook: only the one CA of the
 * caBundle, and (with endpoint identification {@code HTTPS} set on the socket) the host name or IP.
 * It remembers the certificate the server presented and, instead of failing the handshake only, why
 * it was refused.
 */
final class ApiServerTrust extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager pkix;
  private volatile X509Certificate presented;
  private volatile String refusal;

  /**
   * @param ca the only CA trusted
   */
  ApiServerTrust(X509Certificate ca) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      TrustManagerFactory f = TrustManagerFactory.getInstance("PKIX");
      f.init(store);
      X509ExtendedTrustManager found = null;
      for (TrustManager tm : f.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          found = x;
        }
      }
      if (found == null) {
        throw new IllegalStateException("no X509ExtendedTrustManager in this JVM");
      }
      this.pkix = found;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot build a trust store for the CA", e);
    }
  }

  /** A client context with this trust. */
  SSLContext context() {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, new TrustManager[] {this}, new SecureRandom());
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
  }

  /** The leaf the server presented, or null before (or without) a handshake. */
  X509Certificate presented() {
    return presented;
  }

  /** Why the presented chain was refused (one line), or null when it was trusted. */
  String refusal() {
    return refusal;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    check(chain, c -> pkix.checkServerTrusted(c, authType, socket));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    check(chain, c -> pkix.checkServerTrusted(c, authType, engine));
  }

  /** A PKIX check of a chain. */
  private interface Check {
    void run(X509Certificate[] chain) throws CertificateException;
  }

  /**
   * Keeps the presented leaf and, when {@code pkix} refuses the chain, why. As Go's verifier
   * (kube-apiserver's), which builds a path from the leaf and leaves out presented certificates it
   * does not need, the chain is also tried without its last ones: a leaf followed by an older CA of
   * the same name, which Go accepts, was refused here, and make certs said "run again" for ever
   * (fresh eyes, session 46). The refusal is the whole chain's.
   */
  private void check(X509Certificate[] chain, Check pkix) throws CertificateException {
    presented = chain.length == 0 ? null : chain[0];
    CertificateException first = null;
    for (int n = chain.length; n >= 1; n--) {
      try {
        pkix.run(n == chain.length ? chain : java.util.Arrays.copyOf(chain, n));
        return;
      } catch (CertificateException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first == null) {
      first = new CertificateException("no certificate presented");
    }
    refusal = CaFiles.oneLine(first.getMessage());
    throw first;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    throw new CertificateException("a socket is needed to check the host name");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    throw new CertificateException("client certificates are not checked here");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    throw new CertificateException("client certificates are not checked here");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    throw new CertificateException("client certificates are not checked here");
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return pkix.getAcceptedIssuers();
  }
}

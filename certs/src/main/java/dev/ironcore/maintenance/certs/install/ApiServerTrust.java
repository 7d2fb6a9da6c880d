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
    check(chain, () -> pkix.checkServerTrusted(chain, authType, socket));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    check(chain, () -> pkix.checkServerTrusted(chain, authType, engine));
  }

  /** A PKIX check of the presented chain. */
  private interface Check {
    void run() throws CertificateException;
  }

  /** Keeps the presented leaf and, when {@code pkix} refuses the chain, why. */
  private void check(X509Certificate[] chain, Check pkix) throws CertificateException {
    presented = chain.length == 0 ? null : chain[0];
    try {
      pkix.run();
    } catch (CertificateException e) {
      refusal = CaFiles.oneLine(e.getMessage());
      throw e;
    }
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

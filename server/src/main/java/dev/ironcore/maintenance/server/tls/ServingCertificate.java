package dev.ironcore.maintenance.server.tls;

import dev.ironcore.maintenance.certs.PemKeyStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Arrays;
import java.util.Date;
import java.util.Objects;
import java.util.Optional;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's TLS identity, read from a PEM certificate chain and a PEM private key, held in a
 * Jetty {@link SslContextFactory.Server} (TLS 1.2 and 1.3 only). {@link #reloadIfChanged()}
 * re-reads the files and swaps the identity in place when their bytes changed, so new handshakes
 * use the new certificate; a failed reload keeps the old one and makes {@link #problem()} report
 * the failure, so {@code /healthz} fails until the files are fixed.
 */
public final class ServingCertificate {
  private static final Logger LOG = LoggerFactory.getLogger(ServingCertificate.class);

  private final Path certFile;
  private final Path keyFile;
  private final Clock clock;
  private final SslContextFactory.Server sslContextFactory = new SslContextFactory.Server();

  private byte[] loadedCert;
  private byte[] loadedKey;
  private X509Certificate current;
  private String reloadProblem;

  private ServingCertificate(Path certFile, Path keyFile, Clock clock) {
    this.certFile = Objects.requireNonNull(certFile, "certFile");
    this.keyFile = Objects.requireNonNull(keyFile, "keyFile");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * @param certFile PEM certificate chain, leaf first
   * @param keyFile PEM private key of the leaf (unencrypted)
   * @return the identity, loaded
   * @throws UncheckedIOException when a file cannot be read
   * @throws IllegalArgumentException when the PEM is malformed or key and certificate differ
   */
  public static ServingCertificate load(Path certFile, Path keyFile) {
    return load(certFile, keyFile, Clock.systemUTC());
  }

  /** As {@link #load(Path, Path)}, judging expiry by {@code clock}. */
  public static ServingCertificate load(Path certFile, Path keyFile, Clock clock) {
    ServingCertificate certificate = new ServingCertificate(certFile, keyFile, clock);
    SslContextFactory.Server factory = certificate.sslContextFactory;
    factory.setIncludeProtocols("TLSv1.3", "TLSv1.2");
    factory.setKeyManagerPassword(new String(PemKeyStores.DEFAULT_PASSWORD));
    factory.setCertAlias(PemKeyStores.KEY_ALIAS);
    byte[][] files = certificate.readFiles();
    KeyStore keyStore = PemKeyStores.load(certFile, keyFile);
    factory.setKeyStore(keyStore);
    certificate.remember(files, keyStore);
    return certificate;
  }

  /**
   * @return the Jetty TLS configuration to put in the HTTPS connector
   */
  public SslContextFactory.Server sslContextFactory() {
    return sslContextFactory;
  }

  /**
   * @return the leaf certificate currently served
   */
  public synchronized X509Certificate current() {
    return current;
  }

  /**
   * Re-reads both files; when their bytes differ from what is loaded, builds a new key store and
   * swaps it into the running factory.
   *
   * @return true when a new certificate was loaded
   */
  public synchronized boolean reloadIfChanged() {
    try {
      byte[][] files = readFiles();
      if (Arrays.equals(files[0], loadedCert) && Arrays.equals(files[1], loadedKey)) {
        return false;
      }
      KeyStore keyStore = PemKeyStores.load(certFile, keyFile);
      sslContextFactory.reload(f -> f.setKeyStore(keyStore));
      remember(files, keyStore);
      LOG.info(
          "reloaded serving certificate from {} (subject {}, valid until {})",
          certFile,
          current.getSubjectX500Principal().getName(),
          current.getNotAfter().toInstant());
      return true;
    } catch (Exception e) {
      String problem = "cannot load " + certFile + " / " + keyFile + ": " + e.getMessage();
      if (!problem.equals(reloadProblem)) {
        LOG.error("{}; still serving the previous certificate", problem);
      }
      reloadProblem = problem;
      return false;
    }
  }

  /**
   * @return empty when healthy; otherwise why not: the last reload failed, or the served
   *     certificate is expired or not yet valid
   */
  public synchronized Optional<String> problem() {
    if (reloadProblem != null) {
      return Optional.of(reloadProblem);
    }
    Date now = Date.from(clock.instant());
    if (now.after(current.getNotAfter())) {
      return Optional.of("serving certificate expired at " + current.getNotAfter().toInstant());
    }
    if (now.before(current.getNotBefore())) {
      return Optional.of(
          "serving certificate is not valid before " + current.getNotBefore().toInstant());
    }
    return Optional.empty();
  }

  private byte[][] readFiles() {
    try {
      return new byte[][] {Files.readAllBytes(certFile), Files.readAllBytes(keyFile)};
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + certFile + " or " + keyFile, e);
    }
  }

  private void remember(byte[][] files, KeyStore keyStore) {
    try {
      current = (X509Certificate) keyStore.getCertificate(PemKeyStores.KEY_ALIAS);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("key store without certificate", e);
    }
    loadedCert = files[0];
    loadedKey = files[1];
    reloadProblem = null;
  }
}

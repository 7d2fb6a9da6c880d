package dev.ironcore.maintenance.server.tls;

import dev.ironcore.maintenance.api.tls.CipherSuites;
import dev.ironcore.maintenance.certs.PemKeyStores;
import dev.ironcore.maintenance.certs.Serials;
import dev.ironcore.maintenance.process.DurationFlag;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * use the new certificate while connections already open (and requests in flight on them) go on
 * with the old one. Only a parseable certificate together with its own key is ever loaded: the pair
 * is built from the very bytes read, and files that change while being read (a writer between its
 * two files, a Kubernetes {@code ..data} symlink swap between our two reads) are read again at the
 * next check. A failed reload keeps the old identity (as controller-runtime's certwatcher does),
 * logs why, and reports it in {@link #reloadProblem()} until the files hold a usable pair again;
 * the server stays ready with the old identity while it is valid ({@link #servingProblem()}).
 *
 * <p>Expiry warning: when the served certificate expires within {@link #expiryWarning()} (default
 * 30 days), {@link #expiresSoon()} is true and a warning is logged at load, at each new certificate
 * and once a day.
 */
public final class ServingCertificate {
  private static final Logger LOG = LoggerFactory.getLogger(ServingCertificate.class);

  /** Default {@link #expiryWarning()}: 30 days. */
  public static final Duration DEFAULT_EXPIRY_WARNING = Duration.ofDays(30);

  private static final Duration WARN_AGAIN = Duration.ofDays(1);

  private final Path certFile;
  private final Path keyFile;
  private final Clock clock;
  private final Duration expiryWarning;
  private final SslContextFactory.Server sslContextFactory = new SslContextFactory.Server();

  private byte[] loadedCert;
  private byte[] loadedKey;
  private X509Certificate current;
  private String reloadProblem;
  private X509Certificate warnedAbout;
  private Instant warnedAt;
  private boolean warnedInvalid;

  private ServingCertificate(Path certFile, Path keyFile, Clock clock, Duration expiryWarning) {
    this.certFile = Objects.requireNonNull(certFile, "certFile");
    this.keyFile = Objects.requireNonNull(keyFile, "keyFile");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.expiryWarning = Objects.requireNonNull(expiryWarning, "expiryWarning");
    if (expiryWarning.isNegative()) {
      throw new IllegalArgumentException("expiryWarning must not be negative");
    }
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
    return load(certFile, keyFile, clock, DEFAULT_EXPIRY_WARNING);
  }

  /**
   * As {@link #load(Path, Path)}, judging expiry by {@code clock} and warning when the certificate
   * expires within {@code expiryWarning} (zero: never).
   */
  public static ServingCertificate load(
      Path certFile, Path keyFile, Clock clock, Duration expiryWarning) {
    ServingCertificate certificate =
        new ServingCertificate(certFile, keyFile, clock, expiryWarning);
    SslContextFactory.Server factory = certificate.sslContextFactory;
    factory.setIncludeProtocols("TLSv1.3", "TLSv1.2");
    factory.setIncludeCipherSuites(CipherSuites.PREFERRED.toArray(String[]::new));
    factory.setUseCipherSuitesOrder(true);
    factory.setKeyManagerPassword(new String(PemKeyStores.DEFAULT_PASSWORD));
    factory.setCertAlias(PemKeyStores.KEY_ALIAS);
    byte[][] files = certificate.readFiles();
    KeyStore keyStore = certificate.keyStore(files);
    factory.setKeyStore(keyStore);
    synchronized (certificate) {
      certificate.remember(files, keyStore);
      certificate.warnIfExpiringSoon();
    }
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
   * Names the served certificate for the start log, so that an operator sees its expiry on every
   * start, not only inside the warning window.
   *
   * @return e.g. {@code "certs/tls.crt (CN=webhook, serial 1a2b, valid until 2027-01-06T10:00:00Z,
   *     29 days left)"}; {@code "0s left"} once expired
   */
  public synchronized String describe() {
    return certFile
        + " ("
        + current.getSubjectX500Principal().getName()
        + ", serial "
        + Serials.hex(current)
        + ", valid until "
        + current.getNotAfter().toInstant()
        + ", "
        + DurationFlag.days(Duration.between(clock.instant(), current.getNotAfter().toInstant()))
        + " left)";
  }

  /**
   * @return the warning window: {@link #expiresSoon()} when the certificate expires within it
   */
  public Duration expiryWarning() {
    return expiryWarning;
  }

  /**
   * @return true when the served certificate expires within {@link #expiryWarning()} (or has
   *     expired)
   */
  public synchronized boolean expiresSoon() {
    return !expiryWarning.isZero()
        && clock.instant().plus(expiryWarning).isAfter(current.getNotAfter().toInstant());
  }

  /**
   * Re-reads both files; when their bytes differ from what is loaded, builds a new key store from
   * those bytes and swaps it into the running factory. Files that change between two reads are left
   * for the next call.
   *
   * <p>The files are read outside this object's lock: a read that does not return (a file system
   * that hangs) then holds the reloading thread only, not {@code /readyz} and {@code /metrics},
   * which ask {@link #servingProblem()} and {@link #reloadProblem()} (fresh eyes, session 44: a
   * FIFO in place of tls.crt held the lock, then every request thread, then admission).
   *
   * @return true when a new certificate was loaded
   */
  public boolean reloadIfChanged() {
    byte[][] files;
    byte[][] again;
    try {
      files = readFiles();
      again = readFiles();
    } catch (RuntimeException e) {
      return failed(e);
    }
    return reloadFrom(files, again);
  }

  private synchronized boolean reloadFrom(byte[][] files, byte[][] again) {
    try {
      if (!Arrays.equals(files[0], again[0]) || !Arrays.equals(files[1], again[1])) {
        LOG.debug("{} / {} changed while being read; trying again later", certFile, keyFile);
        return false;
      }
      if (Arrays.equals(files[0], loadedCert) && Arrays.equals(files[1], loadedKey)) {
        if (reloadProblem != null) {
          // the files hold the served pair again (e.g. a bad write was undone): nothing to reload
          LOG.info(
              "{} / {} hold the served certificate again (serial {}); problem cleared",
              certFile,
              keyFile,
              Serials.hex(current));
          reloadProblem = null;
        }
        warnIfExpiringSoon();
        return false;
      }
      KeyStore keyStore = keyStore(files);
      // a pair kube-apiserver would refuse is never swapped in for the served one
      Optional<String> invalid = validNow(leaf(keyStore));
      if (invalid.isPresent()) {
        throw new IllegalArgumentException(certFile + ": the " + invalid.get());
      }
      sslContextFactory.reload(f -> f.setKeyStore(keyStore));
      remember(files, keyStore);
      LOG.info("reloaded serving certificate {}", describe());
      warnIfExpiringSoon();
      return true;
    } catch (Exception e) {
      return failed(e);
    }
  }

  /** Logs (once per distinct problem) and remembers why the files could not be loaded; false. */
  private synchronized boolean failed(Exception e) {
    String problem = "cannot load " + certFile + " / " + keyFile + ": " + e.getMessage();
    if (!problem.equals(reloadProblem)) {
      LOG.error(
          "{}; still serving the previous certificate (serial {}, valid until {})",
          problem,
          Serials.hex(current),
          current.getNotAfter().toInstant());
    }
    reloadProblem = problem;
    return false;
  }

  /**
   * @return empty while the served certificate is valid now; otherwise why not: it has expired or
   *     is not yet valid (judged by the clock given at load). A TLS client such as kube-apiserver
   *     refuses such a certificate, so the server is not ready.
   */
  public synchronized Optional<String> servingProblem() {
    return validNow(current).map(why -> "serving " + why);
  }

  /** Empty when {@code certificate} is valid at the clock's instant, else why not. */
  private Optional<String> validNow(X509Certificate certificate) {
    Date now = Date.from(clock.instant());
    if (now.after(certificate.getNotAfter())) {
      return Optional.of("certificate expired at " + certificate.getNotAfter().toInstant());
    }
    if (now.before(certificate.getNotBefore())) {
      return Optional.of(
          "certificate is not valid before " + certificate.getNotBefore().toInstant());
    }
    return Optional.empty();
  }

  /**
   * @return empty while the files hold the served pair or the last reload succeeded; otherwise why
   *     the last reload failed ({@code cannot load CERT / KEY: reason}). The previous certificate
   *     is still served meanwhile.
   */
  public synchronized Optional<String> reloadProblem() {
    return Optional.ofNullable(reloadProblem);
  }

  /**
   * Logs, once per certificate and then daily: an ERROR while the served certificate is expired or
   * not yet valid, a WARN while it expires within the warning window.
   */
  private void warnIfExpiringSoon() {
    Optional<String> invalid = validNow(current);
    if (invalid.isEmpty() && !expiresSoon()) {
      return;
    }
    Instant now = clock.instant();
    if (current.equals(warnedAbout)
        && warnedInvalid == invalid.isPresent()
        && now.isBefore(warnedAt.plus(WARN_AGAIN))) {
      return;
    }
    warnedAbout = current;
    warnedAt = now;
    warnedInvalid = invalid.isPresent();
    if (invalid.isPresent()) {
      LOG.error(
          "serving {} ({}, serial {}): kube-apiserver refuses it and /readyz fails until {} / {}"
              + " hold a valid pair (make certs re-issues it, make rotate-certs rotates CA and"
              + " certificate)",
          invalid.get(),
          current.getSubjectX500Principal().getName(),
          Serials.hex(current),
          certFile,
          keyFile);
      return;
    }
    Duration left = Duration.between(now, current.getNotAfter().toInstant());
    LOG.warn(
        "serving certificate {} (serial {}) expires at {}, in {} (warning window {});"
            + " renew it (make certs re-issues it while its CA outlives the new one; make"
            + " rotate-certs rotates CA and certificate, also when the CA itself ends then)",
        current.getSubjectX500Principal().getName(),
        Serials.hex(current),
        current.getNotAfter().toInstant(),
        DurationFlag.days(left),
        DurationFlag.days(expiryWarning));
  }

  private KeyStore keyStore(byte[][] files) {
    return PemKeyStores.fromPem(
        new String(files[0], StandardCharsets.UTF_8),
        new String(files[1], StandardCharsets.UTF_8),
        PemKeyStores.DEFAULT_PASSWORD,
        certFile.toString(),
        keyFile.toString());
  }

  private byte[][] readFiles() {
    return new byte[][] {PemKeyStores.readBytes(certFile), PemKeyStores.readBytes(keyFile)};
  }

  private static X509Certificate leaf(KeyStore keyStore) {
    try {
      return (X509Certificate) keyStore.getCertificate(PemKeyStores.KEY_ALIAS);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("key store without certificate", e);
    }
  }

  private void remember(byte[][] files, KeyStore keyStore) {
    current = leaf(keyStore);
    loadedCert = files[0];
    loadedKey = files[1];
    reloadProblem = null;
  }
}

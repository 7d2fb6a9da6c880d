package dev.ironcore.maintenance.certs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.Supplier;
import javax.crypto.spec.PBEParameterSpec;

/**
 * In-memory PKCS12 key stores built from PEM files, for Jetty's {@code SslContextFactory} or a
 * plain {@link javax.net.ssl.SSLContext}. Nothing is written to disk.
 */
public final class PemKeyStores {

  /** Alias of the key entry in stores built by {@link #load(Path, Path)}. */
  public static final String KEY_ALIAS = "server";

  /** Password of stores and key entries unless one is given: the empty password. */
  public static final char[] DEFAULT_PASSWORD = new char[0];

  private static final SecureRandom SALTS = new SecureRandom();

  private PemKeyStores() {}

  /**
   * A PKCS12 store with one key entry {@value #KEY_ALIAS}, protected by the empty password.
   *
   * @param certPem certificate chain, leaf first (further certificates are kept as the chain)
   * @param keyPem the leaf's unencrypted private key
   * @throws UncheckedIOException if a file cannot be read
   * @throws IllegalArgumentException if the PEM is malformed or the key does not match the leaf
   */
  public static KeyStore load(Path certPem, Path keyPem) {
    return load(certPem, keyPem, DEFAULT_PASSWORD);
  }

  /** As {@link #load(Path, Path)}, with the given store and key-entry password. */
  public static KeyStore load(Path certPem, Path keyPem, char[] password) {
    return fromPem(read(certPem), read(keyPem), password, certPem.toString(), keyPem.toString());
  }

  /**
   * As {@link #load(Path, Path, char[])}, from PEM text already read.
   *
   * @param certName how to name the certificate in error messages (e.g. its file)
   * @param keyName how to name the key in error messages
   * @throws IllegalArgumentException if the PEM is malformed (the message starts with the name of
   *     the malformed one), the leaf's key is one a Go TLS peer such as kube-apiserver refuses
   *     ({@link GoTlsKeys}: RSA under 1,024 bits, EC other than P-256/P-384/P-521), the key does
   *     not match the leaf, or the certificates after the leaf are not its issuers in order
   */
  public static KeyStore fromPem(
      String certPem, String keyPem, char[] password, String certName, String keyName) {
    List<X509Certificate> chain = named(certName, () -> Pem.decodeCertificates(certPem));
    PrivateKey key = named(keyName, () -> Pem.decodePrivateKey(keyPem));
    GoTlsKeys.require(chain.get(0).getPublicKey(), certName);
    requireLeafFirst(chain, key, keyName, certName);
    KeyMatch.require(chain.get(0).getPublicKey(), key, keyName, certName);
    requireIssuersInOrder(chain, certName);
    try {
      KeyStore ks = emptyStore();
      ks.setEntry(
          KEY_ALIAS,
          new KeyStore.PrivateKeyEntry(key, chain.toArray(Certificate[]::new)),
          inMemoryProtection(password));
      return ks;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build key store: " + e.getMessage(), e);
    }
  }

  /**
   * A key that is not the first certificate's but a later one's: the file lists the leaf later
   * (fresh eyes, session 44: {@code cat inter.crt leaf.crt} was refused as "not the private key").
   */
  private static void requireLeafFirst(
      List<X509Certificate> chain, PrivateKey key, String keyName, String certName) {
    if (chain.size() < 2 || KeyMatch.belongsTo(chain.get(0).getPublicKey(), key)) {
      return;
    }
    for (int i = 1; i < chain.size(); i++) {
      if (KeyMatch.belongsTo(chain.get(i).getPublicKey(), key)) {
        throw new IllegalArgumentException(
            keyName
                + " is the private key of certificate "
                + (i + 1)
                + " of "
                + chain.size()
                + " in "
                + certName
                + " ("
                + chain.get(i).getSubjectX500Principal().getName()
                + "), not of the first: list the leaf first, then its issuers");
      }
    }
  }

  /**
   * Each certificate after the leaf must be the issuer of the one before it (as the JDK's key store
   * requires, by name): a certificate given twice ({@code cat tls.crt tls.crt}), or one of another
   * chain, was refused as "cannot build key store" alone (fresh eyes, session 44).
   */
  private static void requireIssuersInOrder(List<X509Certificate> chain, String certName) {
    java.util.Map<X509Certificate, Integer> seen = new java.util.HashMap<>();
    seen.put(chain.get(0), 1);
    for (int i = 1; i < chain.size(); i++) {
      X509Certificate child = chain.get(i - 1);
      X509Certificate issuer = chain.get(i);
      Integer earlier = seen.putIfAbsent(issuer, i + 1);
      if (earlier != null) {
        // a self-signed CA given twice names itself as its issuer, and a certificate repeated
        // further down can follow names in order: the JDK's key store then said only "Certificate
        // chain is not valid" (fresh eyes and review, session 46)
        throw outOfOrder(certName, chain, i, "repeats certificate " + earlier);
      }
      if (!child.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
        throw outOfOrder(
            certName,
            chain,
            i,
            "is not the issuer of certificate "
                + i
                + " (issued by "
                + child.getIssuerX500Principal().getName()
                + ")");
      }
    }
  }

  /** {@code <file>: certificate <i+1> of <n> (<subject>) <what>: list the leaf first, ...}. */
  private static IllegalArgumentException outOfOrder(
      String certName, List<X509Certificate> chain, int i, String what) {
    return new IllegalArgumentException(
        certName
            + ": certificate "
            + (i + 1)
            + " of "
            + chain.size()
            + " ("
            + chain.get(i).getSubjectX500Principal().getName()
            + ") "
            + what
            + ": list the leaf first, then each issuer in order, each once");
  }

  /**
   * A PKCS12 trust store holding every certificate of {@code caPem} as a trusted entry (aliases
   * {@code ca-0}, {@code ca-1}, ...).
   *
   * @throws UncheckedIOException if the file cannot be read
   * @throws IllegalArgumentException if it holds no certificate (the message starts with the file)
   */
  public static KeyStore loadTrust(Path caPem) {
    String text = read(caPem);
    List<X509Certificate> cas = named(caPem.toString(), () -> Pem.decodeCertificates(text));
    try {
      KeyStore ks = emptyStore();
      for (int i = 0; i < cas.size(); i++) {
        ks.setCertificateEntry("ca-" + i, cas.get(i));
      }
      return ks;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build trust store", e);
    }
  }

  /** {@code decode}'s result; its IllegalArgumentException prefixed with {@code name}. */
  static <T> T named(String name, Supplier<T> decode) {
    try {
      return decode.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }

  /**
   * The key entry's protection: PKCS#12's default cipher (PBES2, HMAC-SHA256, AES-256) with one
   * key-derivation iteration instead of the JDK's 10,000. The store lives in memory only and its
   * password is known to the process, so the iterations protect nothing; run twice at start-up
   * (store, then Jetty's key manager) on a JVM still interpreting, they cost about 0.1 s of the
   * webhook server's time to ready ({@code make bench}).
   */
  private static KeyStore.PasswordProtection inMemoryProtection(char[] password) {
    byte[] salt = new byte[16];
    SALTS.nextBytes(salt);
    return new KeyStore.PasswordProtection(
        password, "PBEWithHmacSHA256AndAES_256", new PBEParameterSpec(salt, 1));
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try {
      ks.load(null, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ks;
  }

  private static String read(Path file) {
    return new String(readBytes(file), StandardCharsets.UTF_8);
  }

  /**
   * The most a PEM file may hold: 4 MiB, four times what a Kubernetes Secret (1 MiB) can carry. A
   * larger file is refused once that much is read (fresh eyes, session 44: a 300 MB file took 1 GB
   * before its refusal).
   */
  static final int MAX_BYTES = 4 << 20;

  /**
   * The bytes of a PEM file.
   *
   * @throws UncheckedIOException "cannot read FILE: why" (no such file, permission denied, is a
   *     directory, not a regular file, larger than {@link #MAX_BYTES}, ...)
   */
  public static byte[] readBytes(Path file) {
    if (Files.exists(file) && !Files.isDirectory(file) && !Files.isRegularFile(file)) {
      // a FIFO blocks the open until a writer comes, a device never ends (fresh eyes, session 44)
      throw new UncheckedIOException(
          "cannot read " + file + ": not a regular file (a FIFO, a device or a socket)",
          new IOException("not a regular file"));
    }
    try (java.io.InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw new UncheckedIOException(
            "cannot read "
                + file
                + ": larger than "
                + (MAX_BYTES >> 20)
                + " MiB, too large for a PEM file (a Secret holds at most 1 MiB)",
            new IOException("too large"));
      }
      return bytes;
    } catch (NoSuchFileException e) {
      throw new UncheckedIOException("cannot read " + file + ": no such file", e);
    } catch (AccessDeniedException e) {
      throw new UncheckedIOException("cannot read " + file + ": permission denied", e);
    } catch (IOException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new UncheckedIOException("cannot read " + file + ": " + why, e);
    }
  }
}

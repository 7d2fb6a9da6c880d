package dev.ironcore.maintenance.certs;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Security;
import java.security.Signature;

/** Checks that a private key belongs to a public key by signing and verifying a random nonce. */
final class KeyMatch {

  /**
   * The JCA name of Conscrypt's provider, which the webhook server registers (last, so nothing asks
   * for it by accident) when it serves TLS with Conscrypt.
   */
  static final String CONSCRYPT = "Conscrypt";

  private static final SecureRandom RANDOM = new SecureRandom();

  private KeyMatch() {}

  /**
   * True when {@code key} signs what {@code pub} verifies (RSA or EC); false on any mismatch.
   *
   * <p>Signs and verifies with Conscrypt (BoringSSL) when the process registered its provider, else
   * with the JDK's. At a server's start the JDK's EC code still runs in the interpreter, and its
   * first P-256 signature built its tables for 0.07-0.2 s on the start's critical path; BoringSSL
   * takes well under a millisecond. A key Conscrypt refuses is checked with the JDK's providers.
   *
   * @throws IllegalArgumentException when {@code key} cannot be used at all, so that a matching
   *     pair is not reported as a mismatch: a key of another algorithm (e.g. Ed25519, RSASSA-PSS;
   *     the message names it) or one neither Conscrypt nor the JDK can sign with (e.g. an EC key on
   *     secp256k1; the message carries the JDK's reason)
   */
  static boolean belongTogether(PublicKey pub, PrivateKey key) {
    if (!"RSA".equals(key.getAlgorithm()) && !"EC".equals(key.getAlgorithm())) {
      throw new IllegalArgumentException(
          "key algorithm " + key.getAlgorithm() + " is not supported (only RSA and EC keys are)");
    }
    if (!pub.getAlgorithm().equals(key.getAlgorithm())) {
      return false;
    }
    String alg = pub.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    Provider conscrypt = preferred();
    if (conscrypt != null) {
      try {
        return signAndVerify(alg, pub, key, conscrypt);
      } catch (GeneralSecurityException | RuntimeException e) {
        // e.g. a key type Conscrypt does not take: the JDK's providers decide
      }
    }
    try {
      return signAndVerify(alg, pub, key, null);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot sign with this " + key.getAlgorithm() + " key: " + e.getMessage(), e);
    }
  }

  /** Whether {@code key} is the private key of {@code pub}; false also when it cannot be told. */
  static boolean belongsTo(PublicKey pub, PrivateKey key) {
    try {
      return belongTogether(pub, key);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Refuses a key that does not belong to the certificate's public key.
   *
   * @param keyName how to name the key in the message (e.g. its file)
   * @param certName how to name the certificate
   * @throws IllegalArgumentException {@code "<keyName> is not the private key of <certName>"}, or
   *     {@code "<keyName>: ..."} for a key that cannot be used at all ({@link #belongTogether})
   */
  static void require(PublicKey pub, PrivateKey key, String keyName, String certName) {
    if (!PemKeyStores.named(keyName, () -> belongTogether(pub, key))) {
      throw new IllegalArgumentException(keyName + " is not the private key of " + certName);
    }
  }

  /** Conscrypt's provider when registered in this process, else null (the JDK's providers). */
  static Provider preferred() {
    return Security.getProvider(CONSCRYPT);
  }

  static boolean signAndVerify(String alg, PublicKey pub, PrivateKey key, Provider provider)
      throws GeneralSecurityException {
    byte[] nonce = new byte[32];
    RANDOM.nextBytes(nonce);
    Signature s =
        provider == null ? Signature.getInstance(alg) : Signature.getInstance(alg, provider);
    s.initSign(key);
    s.update(nonce);
    byte[] sig = s.sign();
    Signature v =
        provider == null ? Signature.getInstance(alg) : Signature.getInstance(alg, provider);
    v.initVerify(pub);
    v.update(nonce);
    return v.verify(sig);
  }
}

package dev.ironcore.maintenance.certs;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;

/** Checks that a private key belongs to a public key by signing and verifying a random nonce. */
final class KeyMatch {

  private static final SecureRandom RANDOM = new SecureRandom();

  private KeyMatch() {}

  /** True when {@code key} signs what {@code pub} verifies (RSA or EC); false on any mismatch. */
  static boolean belongTogether(PublicKey pub, PrivateKey key) {
    if (!pub.getAlgorithm().equals(key.getAlgorithm())) {
      return false;
    }
    try {
      String alg = pub.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
      byte[] nonce = new byte[32];
      RANDOM.nextBytes(nonce);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(nonce);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(pub);
      v.update(nonce);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}

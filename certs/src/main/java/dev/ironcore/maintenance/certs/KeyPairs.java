package dev.ironcore.maintenance.certs;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;

/** Fresh key pairs from the JDK's own providers. */
public final class KeyPairs {

  private static final SecureRandom RANDOM = new SecureRandom();

  private KeyPairs() {}

  /** A new EC key pair on curve P-256 (secp256r1); signs with SHA256withECDSA. */
  public static KeyPair ecP256() {
    try {
      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
      gen.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return gen.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("EC P-256 is not available in this JVM", e);
    }
  }

  /** A new RSA key pair of 2048 bits (e.g. for Kubernetes service-account token signing). */
  public static KeyPair rsa2048() {
    try {
      KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
      gen.initialize(2048, RANDOM);
      return gen.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("RSA is not available in this JVM", e);
    }
  }
}

package dev.ironcore.maintenance.certs;

import java.security.KeyPair;
import java.util.Locale;

/** Key type of a new CA or leaf: ECDSA on P-256 (the default) or RSA 2048. */
public enum KeyAlgorithm {
  /** EC key on curve P-256, signatures SHA256withECDSA; JCA algorithm name {@code EC}. */
  ECDSA("EC"),
  /** RSA 2048-bit key, signatures SHA256withRSA; JCA algorithm name {@code RSA}. */
  RSA("RSA");

  private final String jcaName;

  KeyAlgorithm(String jcaName) {
    this.jcaName = jcaName;
  }

  /** A fresh key pair of this type. */
  public KeyPair generate() {
    return this == RSA ? KeyPairs.rsa2048() : KeyPairs.ecP256();
  }

  /** True when {@code jcaAlgorithm} (e.g. {@code key.getAlgorithm()}) is this type. */
  public boolean matches(String jcaAlgorithm) {
    return jcaName.equalsIgnoreCase(jcaAlgorithm)
        || (this == ECDSA && "ECDSA".equalsIgnoreCase(jcaAlgorithm));
  }

  /**
   * Parses {@code ecdsa}, {@code ec}, {@code rsa} (any case).
   *
   * @throws IllegalArgumentException for anything else
   */
  public static KeyAlgorithm parse(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "ecdsa", "ec", "p256", "p-256" -> ECDSA;
      case "rsa", "rsa2048" -> RSA;
      default ->
          throw new IllegalArgumentException("unknown key algorithm '" + text + "' (ecdsa or rsa)");
    };
  }
}

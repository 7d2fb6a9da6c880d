package dev.ironcore.maintenance.certs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A serving certificate chain (leaf first) with the leaf's private key, checked to belong together.
 *
 * @param certificatePem the chain as PEM ({@code tls.crt})
 * @param privateKeyPem the key as PEM ({@code tls.key})
 * @param leaf the parsed leaf certificate
 * @param privateKey the parsed key
 */
public record ServingPair(
    String certificatePem, String privateKeyPem, X509Certificate leaf, PrivateKey privateKey) {

  /**
   * Parses and checks a pair.
   *
   * @throws IllegalArgumentException when either PEM is empty or malformed, or the key does not
   *     belong to the leaf certificate
   */
  public static ServingPair parse(String certificatePem, String privateKeyPem) {
    if (certificatePem == null || certificatePem.isBlank()) {
      throw new IllegalArgumentException("tls.crt is empty");
    }
    if (privateKeyPem == null || privateKeyPem.isBlank()) {
      throw new IllegalArgumentException("tls.key is empty");
    }
    X509Certificate leaf =
        PemKeyStores.named("tls.crt", () -> Pem.decodeCertificate(certificatePem));
    PrivateKey key = PemKeyStores.named("tls.key", () -> Pem.decodePrivateKey(privateKeyPem));
    KeyMatch.require(leaf.getPublicKey(), key, "tls.key", "tls.crt");
    return new ServingPair(certificatePem, privateKeyPem, leaf, key);
  }

  /** The pair of an {@link IssuedCertificate}. */
  public static ServingPair of(IssuedCertificate issued) {
    return parse(issued.certificatePem(), issued.privateKeyPem());
  }

  /**
   * The leaf's DNS and IP subject alternative names (IPs in their canonical text form).
   *
   * @throws IllegalStateException when the extension cannot be parsed
   */
  public List<String> subjectAlternativeNames() {
    List<String> out = new ArrayList<>();
    try {
      Collection<List<?>> sans = leaf.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          out.add(String.valueOf(san.get(1)));
        }
      }
    } catch (CertificateParsingException e) {
      throw new IllegalStateException("unreadable subjectAltName", e);
    }
    return out.stream().map(ServingPair::canonicalIp).toList();
  }

  /** True when the leaf carries every one of {@code names} (DNS names or IP literals). */
  public boolean covers(List<String> names) {
    List<String> have = subjectAlternativeNames();
    return names.stream().map(ServingPair::canonicalIp).allMatch(have::contains);
  }

  private static String canonicalIp(String name) {
    if (!name.matches("[0-9.]+|.*:.*")) {
      return name;
    }
    try {
      return InetAddress.getByName(name).getHostAddress();
    } catch (UnknownHostException e) {
      return name;
    }
  }
}

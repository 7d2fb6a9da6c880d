package dev.ironcore.maintenance.certs;

import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The CA certificates of one {@code caBundle} (PEM, one or more {@code CERTIFICATE} blocks), in
 * order, without duplicates. Immutable.
 *
 * @param certificates the CAs, never null
 */
public record CaBundle(List<X509Certificate> certificates) {

  public CaBundle {
    certificates = List.copyOf(certificates);
  }

  /** The empty bundle (nothing trusted). */
  public static CaBundle empty() {
    return new CaBundle(List.of());
  }

  /** A bundle of exactly {@code ca}. */
  public static CaBundle of(X509Certificate ca) {
    return new CaBundle(List.of(ca));
  }

  /**
   * Parses PEM text; null or blank text is the empty bundle.
   *
   * @throws IllegalArgumentException when non-blank text holds no or a malformed certificate
   */
  public static CaBundle parse(String pem) {
    if (pem == null || pem.isBlank()) {
      return empty();
    }
    CaBundle out = empty();
    for (X509Certificate c : Pem.decodeCertificates(pem)) {
      out = out.plus(c);
    }
    return out;
  }

  /** True when the bundle holds {@code ca} (same DER encoding). */
  public boolean contains(X509Certificate ca) {
    return certificates.stream().anyMatch(c -> sameCertificate(c, ca));
  }

  /** True when the bundle holds exactly {@code ca} and nothing else. */
  public boolean isExactly(X509Certificate ca) {
    return certificates.size() == 1 && contains(ca);
  }

  /** This bundle with {@code ca} appended, unless already present. */
  public CaBundle plus(X509Certificate ca) {
    if (contains(ca)) {
      return this;
    }
    List<X509Certificate> out = new ArrayList<>(certificates);
    out.add(ca);
    return new CaBundle(out);
  }

  /** This bundle without certificates that expired before {@code now}. */
  public CaBundle withoutExpired(Instant now) {
    return new CaBundle(certificates.stream().filter(c -> !Renewal.expired(c, now)).toList());
  }

  /** True when some CA in the bundle signed {@code leaf} (signature check only). */
  public boolean signed(X509Certificate leaf) {
    return certificates.stream().anyMatch(ca -> signedBy(leaf, ca));
  }

  /** True when the bundle holds nothing. */
  public boolean isEmpty() {
    return certificates.isEmpty();
  }

  /** The bundle as concatenated PEM blocks; empty text for the empty bundle. */
  public String pem() {
    StringBuilder sb = new StringBuilder();
    certificates.forEach(c -> sb.append(Pem.encode(c)));
    return sb.toString();
  }

  /** True when {@code ca}'s key verifies {@code leaf}'s signature. */
  public static boolean signedBy(X509Certificate leaf, X509Certificate ca) {
    try {
      leaf.verify(ca.getPublicKey());
      return true;
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  /** True when both certificates have the same DER encoding. */
  public static boolean sameCertificate(X509Certificate a, X509Certificate b) {
    try {
      return Arrays.equals(a.getEncoded(), b.getEncoded());
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}

package dev.ironcore.maintenance.certs;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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
   * @param certificatePem null when there is none (no file, no Secret key)
   * @param privateKeyPem null when there is none
   * @throws IllegalArgumentException when either PEM is missing, empty or malformed, or the webhook
   *     server would refuse to load the pair ({@link PemKeyStores#fromPem}: a key Go's TLS cannot
   *     use, a key that does not belong to the leaf, certificates after the leaf that are not its
   *     issuers in order)
   */
  public static ServingPair parse(String certificatePem, String privateKeyPem) {
    present("tls.crt", certificatePem);
    present("tls.key", privateKeyPem);
    // what the webhook server checks when it loads the pair: a pair it refuses is no usable pair
    // here either (fresh eyes, session 46: a tls.crt with a foreign second certificate, or an RSA
    // key of 512 bits, passed make certs as "up to date" while the server refused to load it)
    try {
      PemKeyStores.fromPem(certificatePem, privateKeyPem, new char[0], "tls.crt", "tls.key");
    } catch (IllegalStateException e) {
      // the key store's own refusal of what the checks before it let pass: still the pair's fault
      throw new IllegalArgumentException("tls.crt: " + e.getMessage(), e);
    }
    X509Certificate leaf =
        PemKeyStores.named("tls.crt", () -> Pem.decodeCertificate(certificatePem));
    PrivateKey key = PemKeyStores.named("tls.key", () -> Pem.decodePrivateKey(privateKeyPem));
    KeyMatch.require(leaf.getPublicKey(), key, "tls.key", "tls.crt");
    return new ServingPair(certificatePem, privateKeyPem, leaf, key);
  }

  private static void present(String name, String pem) {
    if (pem == null) {
      // fresh eyes: a deleted tls.key was reported as "tls.key is empty"
      throw new IllegalArgumentException(name + " is missing");
    }
    if (pem.isBlank()) {
      throw new IllegalArgumentException(name + " is empty");
    }
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
    return sansAgainst(names).missing().isEmpty();
  }

  /**
   * How the leaf's DNS and IP subject alternative names differ from {@code wanted}: DNS names
   * compared without regard to case (RFC 4343), IPs in their canonical text form.
   *
   * @param wanted DNS names and IP literals
   * @return the wanted names the leaf lacks, and the leaf's names not wanted; both empty when the
   *     leaf carries exactly {@code wanted}
   */
  public SanDifference sansAgainst(List<String> wanted) {
    Set<String> have = new LinkedHashSet<>();
    subjectAlternativeNames().forEach(n -> have.add(n.toLowerCase(Locale.ROOT)));
    Set<String> want = new LinkedHashSet<>();
    wanted.forEach(n -> want.add(canonicalIp(n).toLowerCase(Locale.ROOT)));
    return new SanDifference(
        want.stream().filter(n -> !have.contains(n)).toList(),
        have.stream().filter(n -> !want.contains(n)).toList());
  }

  /**
   * @param missing wanted names the certificate lacks
   * @param extra the certificate's names that are not wanted
   */
  public record SanDifference(List<String> missing, List<String> extra) {
    /** True when the certificate carries exactly the wanted names. */
    public boolean none() {
      return missing.isEmpty() && extra.isEmpty();
    }
  }

  /**
   * An IP literal in its canonical text form: IPv4 dotted decimal, IPv6 as RFC 5952 writes it
   * ({@code ::1}, as kubectl and Go print it; the JDK writes {@code 0:0:0:0:0:0:0:1}); anything
   * else unchanged.
   */
  static String canonicalIp(String name) {
    if (!name.matches("[0-9.]+|.*:.*")) {
      return name;
    }
    try {
      InetAddress address = InetAddress.getByName(name); // a literal: no name lookup
      return address instanceof Inet6Address
          ? rfc5952(address.getAddress())
          : address.getHostAddress();
    } catch (UnknownHostException e) {
      return name;
    }
  }

  /**
   * RFC 5952 section 4: groups in lowercase hex without leading zeros, the longest run of two or
   * more zero groups (the first of equal runs) as {@code ::}.
   */
  private static String rfc5952(byte[] sixteen) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((sixteen[2 * i] & 0xff) << 8) | (sixteen[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }
}

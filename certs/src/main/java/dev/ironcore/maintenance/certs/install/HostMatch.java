package dev.ironcore.maintenance.certs.install;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Whether a certificate is valid for a host as Go's {@code crypto/x509} (kube-apiserver's webhook
 * client) decides: an IP host only by an equal IP SAN, a DNS host only by a DNS SAN, equal ignoring
 * case or a wildcard {@code *.rest} standing for exactly one leftmost label; the subject CN is
 * never looked at.
 */
final class HostMatch {
  private static final int DNS = 2;
  private static final int IP = 7;

  private HostMatch() {}

  /**
   * @param leaf the serving certificate
   * @param host a DNS name or an IP literal (IPv6 without brackets)
   * @return true when a SAN of {@code leaf} covers {@code host}
   */
  static boolean covers(X509Certificate leaf, String host) {
    if (SanList.looksLikeIp(host)) {
      InetAddress want = ip(host);
      return want != null && sans(leaf, IP).stream().map(HostMatch::ip).anyMatch(want::equals);
    }
    String h = host.toLowerCase(Locale.ROOT);
    return sans(leaf, DNS).stream().anyMatch(p -> dnsMatches(p.toLowerCase(Locale.ROOT), h));
  }

  /** The leaf's DNS names and IPs as text, for messages. */
  static List<String> names(X509Certificate leaf) {
    List<String> out = new ArrayList<>(sans(leaf, DNS));
    out.addAll(sans(leaf, IP));
    return out;
  }

  private static boolean dnsMatches(String pattern, String host) {
    if (pattern.equals(host)) {
      return true;
    }
    if (!pattern.startsWith("*.")) {
      return false;
    }
    int dot = host.indexOf('.');
    return dot > 0 && host.substring(dot).equals(pattern.substring(1));
  }

  private static List<String> sans(X509Certificate leaf, int type) {
    List<String> out = new ArrayList<>();
    try {
      Collection<List<?>> all = leaf.getSubjectAlternativeNames();
      if (all != null) {
        for (List<?> san : all) {
          if (((Integer) san.get(0)) == type) {
            out.add(String.valueOf(san.get(1)));
          }
        }
      }
    } catch (CertificateParsingException e) {
      return List.of();
    }
    return out;
  }

  /** The address of an IP literal (no name lookup), or null. */
  private static InetAddress ip(String literal) {
    if (!SanList.looksLikeIp(literal)) {
      return null;
    }
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      return null;
    }
  }
}

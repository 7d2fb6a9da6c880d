package dev.ironcore.maintenance.certs.install;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.bouncycastle.util.IPAddress;

/**
 * The subject alternative names of a new serving certificate ({@code SANS}, {@code --san}), each
 * checked when it is read, so that a bad one is refused before anything is written: an entry with a
 * {@code :} or made only of digits and dots must be an IPv4 or IPv6 address; any other must be a
 * DNS name as RFC 1123 has it (dot-separated labels of 1 to 63 letters, digits and inner hyphens,
 * at most 253 characters), with a wildcard only as the whole leftmost label ({@code
 * *.example.com}), the one form Go's TLS client (kube-apiserver's) matches. An IPv4-mapped IPv6
 * address is kept as its IPv4 address ({@link #ipv4MappedAsIpv4}).
 *
 * @param dnsNames the DNS names, in the order given
 * @param ipAddresses the IP literals, in the order given
 */
record SanList(List<String> dnsNames, List<String> ipAddresses) {
  private static final Pattern IPV4 =
      Pattern.compile(
          "(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
              + "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
  private static final Pattern LABEL =
      Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

  SanList {
    dnsNames = List.copyOf(dnsNames);
    ipAddresses = List.copyOf(ipAddresses);
  }

  /** DNS names, then IP literals. */
  List<String> all() {
    List<String> out = new ArrayList<>(dnsNames);
    out.addAll(ipAddresses);
    return out;
  }

  /**
   * Sorts and checks the entries; blank ones (as from {@code SANS='a,,b'}) are skipped, and a
   * repeated one is kept once, at its first place (a DNS name in any case, an IP address in any
   * spelling: {@code ::1} and {@code 0:0:0:0:0:0:0:1}), as a certificate need not name it twice.
   *
   * @param entries DNS names and IP literals, surrounding blanks ignored
   * @return them split into DNS names and IPs
   * @throws IllegalArgumentException one line naming the first bad entry, why, and {@code SANS}; or
   *     saying that no entry is left
   */
  static SanList parse(List<String> entries) {
    List<String> dns = new ArrayList<>();
    List<String> ips = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String raw : entries) {
      String e = raw.trim();
      if (e.isEmpty()) {
        continue;
      }
      if (looksLikeIp(e)) {
        if (!IPV4.matcher(e).matches() && !(e.contains(":") && IPAddress.isValidIPv6(e))) {
          throw bad(e, "not a valid IP address (IPv4 as 10.0.0.1, IPv6 as fd00::1)");
        }
        String ip = ipv4MappedAsIpv4(e);
        if (seen.add("ip " + canonicalIp(ip))) {
          ips.add(ip);
        }
      } else {
        String why = dnsProblem(e);
        if (why != null) {
          throw bad(e, why);
        }
        if (seen.add("dns " + e.toLowerCase(Locale.ROOT))) {
          dns.add(e);
        }
      }
    }
    if (dns.isEmpty() && ips.isEmpty()) {
      // fresh eyes: SANS=',' issued nothing and failed later, at the coverage check (exit 1)
      throw new IllegalArgumentException(
          "SANS (--san) names no DNS name or IP address (only empty entries); leave SANS unset"
              + " for the defaults");
    }
    return new SanList(dns, ips);
  }

  /** The address's bytes as text, the same for every spelling of one address. */
  private static String canonicalIp(String literal) {
    try {
      // a literal (checked above): no name lookup
      return Arrays.toString(InetAddress.getByName(literal).getAddress());
    } catch (UnknownHostException e) {
      return literal;
    }
  }

  /**
   * An IPv4-mapped IPv6 literal ({@code ::ffff:127.0.0.2}) as its IPv4 address ({@code 127.0.0.2}),
   * as Go's x509 writes it (4 bytes) and as Java and Go compare it; any other literal unchanged.
   * Written as given, the certificate held the 16-byte form while the check for an up-to-date
   * certificate read it as the IPv4 address.
   */
  static String ipv4MappedAsIpv4(String ip) {
    if (!ip.contains(":")) {
      return ip;
    }
    try {
      // a literal: no name lookup
      InetAddress address = InetAddress.getByName(ip);
      return address instanceof Inet4Address ? address.getHostAddress() : ip;
    } catch (UnknownHostException e) {
      return ip;
    }
  }

  /** An entry with a colon, or of digits and dots only: meant as an IP address. */
  static boolean looksLikeIp(String entry) {
    return entry.contains(":") || entry.matches("[0-9.]+");
  }

  /**
   * Why {@code name} is no RFC 1123 DNS name (wildcard only as the whole leftmost label); null if
   * it is.
   */
  private static String dnsProblem(String name) {
    if (name.length() > 253) {
      return "not a valid DNS name: longer than 253 characters";
    }
    String[] labels = name.split("\\.", -1);
    for (int i = 0; i < labels.length; i++) {
      String l = labels[i];
      if (l.equals("*") && i == 0) {
        if (labels.length < 2) {
          return "not a valid DNS name: a wildcard needs a domain after it (*.example.com)";
        }
        continue;
      }
      if (l.contains("*")) {
        return "not a valid DNS name: '*' only as the whole leftmost label (*.example.com)";
      }
      if (!LABEL.matcher(l).matches()) {
        return "not a valid DNS name (RFC 1123: dot-separated labels of 1 to 63 letters,"
            + " digits and inner '-')";
      }
    }
    return null;
  }

  private static IllegalArgumentException bad(String entry, String why) {
    return new IllegalArgumentException("SANS (--san) entry '" + entry + "': " + why);
  }
}

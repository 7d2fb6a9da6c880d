package dev.ironcore.maintenance.process;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * A listener address in controller-runtime's notation: {@code :8080} (all interfaces), {@code
 * 127.0.0.1:8080}, {@code [::1]:8080}, {@code localhost:8080}, port {@code 0} for any free port,
 * and {@code 0} alone for "no listener". An IPv6 host takes brackets: {@code ::1:8080} is refused,
 * as Go's {@code net.SplitHostPort} refuses it ("too many colons"). Checked when the flags are
 * parsed, before anything starts: the port is 0–65535 and the host resolves to an address of this
 * machine (a wildcard, a loopback address or one of a network interface), so a typo never reaches
 * the listener.
 */
public final class BindAddress {
  private BindAddress() {}

  /**
   * @return empty for {@code "0"} (turned off), else the (resolved) socket address to bind
   * @throws IllegalArgumentException naming the text when there is no {@code :port}, an IPv6 host
   *     has no brackets (the message names the bracketed form, e.g. {@code use [::1]:8080}), the
   *     port is not 0–65535, or the host does not resolve to an address of this machine
   */
  public static Optional<InetSocketAddress> parse(String text) {
    if ("0".equals(text)) {
      return Optional.empty();
    }
    int colon = text.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          "invalid bind address \"" + text + "\": want host:port, :port or 0 (off)");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new IllegalArgumentException(
          "invalid bind address \""
              + text
              + "\": an IPv6 host takes brackets: "
              + bracketed(host, text.substring(colon + 1)));
    }
    int port = port(text.substring(colon + 1));
    if (port < 0) {
      throw new IllegalArgumentException(
          "invalid bind address \"" + text + "\": port must be 0-65535");
    }
    if (host.isEmpty()) {
      return Optional.of(new InetSocketAddress(port));
    }
    try {
      return Optional.of(new InetSocketAddress(host(host), port));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid bind address \"" + text + "\": " + e.getMessage(), e);
    }
  }

  /**
   * A host to listen on (e.g. {@code --bind-address} of the webhook server): an IP address or a
   * name, resolved now.
   *
   * @throws IllegalArgumentException when it does not resolve, or resolves to an address that is no
   *     wildcard, no loopback address and on no network interface of this machine (binding would
   *     fail with "Cannot assign requested address")
   */
  public static InetAddress host(String host) {
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "host \"" + host + "\" does not resolve (want an IP address or a host name)", e);
    }
    if (!address.isAnyLocalAddress() && !address.isLoopbackAddress() && !onInterface(address)) {
      throw new IllegalArgumentException(
          "\""
              + host
              + "\" ("
              + address.getHostAddress()
              + ") is not an address of this machine (use 0.0.0.0 for all interfaces)");
    }
    return address;
  }

  /**
   * What to write instead of an unbracketed IPv6 host and its port: {@code use [::1]:8080}, or,
   * when the two are no IPv6 address and port (e.g. {@code ::1} alone, read as host {@code :} and
   * port 1), an example.
   */
  private static String bracketed(String host, String portText) {
    String candidate = "[" + host + "]:" + portText;
    boolean ipv6 = false;
    if (port(portText) >= 0) {
      try {
        // a server-based authority only for a well-formed IPv6 literal: no name is looked up
        ipv6 = new URI(null, candidate, null, null, null).getHost() != null;
      } catch (URISyntaxException e) {
        ipv6 = false;
      }
    }
    return ipv6 ? "use " + candidate : "write [address]:port, e.g. [::1]:8080";
  }

  /**
   * @return 0–65535, or -1 when {@code text} is no such number
   */
  public static int port(String text) {
    if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9') || text.length() > 5) {
      return -1;
    }
    int port = Integer.parseInt(text);
    return port <= 65535 ? port : -1;
  }

  private static boolean onInterface(InetAddress address) {
    try {
      return NetworkInterface.getByInetAddress(address) != null;
    } catch (SocketException e) {
      return false;
    }
  }
}

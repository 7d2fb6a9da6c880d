package dev.ironcore.maintenance.process;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A listener address in controller-runtime's notation: {@code :8080} (all interfaces), {@code
 * 127.0.0.1:8080}, {@code [::1]:8080}, port {@code 0} for any free port, and {@code 0} alone for
 * "no listener".
 */
public final class BindAddress {
  private BindAddress() {}

  /**
   * @return empty for {@code "0"} (turned off), else the socket address to bind
   * @throws IllegalArgumentException when there is no {@code :port} or the port is not 0–65535
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
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          "invalid bind address \"" + text + "\": port must be 0-65535");
    }
    return Optional.of(
        host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port));
  }
}

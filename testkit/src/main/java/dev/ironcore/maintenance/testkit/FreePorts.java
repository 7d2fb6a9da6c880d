package dev.ironcore.maintenance.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Picks currently unused TCP ports on the loopback interface. */
public final class FreePorts {

  private FreePorts() {}

  /**
   * Returns {@code count} distinct ports that were free on 127.0.0.1 a moment ago. Another process
   * may take one before it is bound; callers that start servers should retry on "address in use".
   */
  public static List<Integer> pick(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        s.setReuseAddress(true);
        sockets.add(s);
        ports.add(s.getLocalPort());
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free loopback ports", e);
    } finally {
      for (ServerSocket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // best effort
        }
      }
    }
  }
}

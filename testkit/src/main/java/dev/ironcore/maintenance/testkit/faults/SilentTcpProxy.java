package dev.ironcore.maintenance.testkit.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a loopback port that can go silent as a stalled load balancer, NAT or firewall
 * does: {@link #silence()} drops every byte in both directions on the connections open then and on
 * those opened meanwhile, without closing or resetting any; {@link #heal()} forwards new
 * connections again while the silenced ones stay silent, as after a middlebox lost its connection
 * state. {@link #silenceIdle(Duration)} silences only connections that carried no byte for a while,
 * as a NAT or load balancer whose idle timeout dropped their state: the next bytes of such a
 * connection are dropped, in both directions, for good. A fault a real API server cannot produce.
 * Bytes pass through unchanged (TLS end to end).
 */
public final class SilentTcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private volatile boolean silentForNew;

  /** Nanoseconds a connection may carry nothing before it is silenced; 0 = never. */
  private volatile long idleNanos;

  /** One proxied connection; silent once its flag is set, for good. */
  private static final class Link {
    final Socket client;
    final Socket upstream;
    volatile boolean silent;
    volatile long lastBytes = System.nanoTime();

    Link(Socket client, Socket upstream, boolean silent) {
      this.client = client;
      this.upstream = upstream;
      this.silent = silent;
    }
  }

  private SilentTcpProxy(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
  }

  /** Listens on a free 127.0.0.1 port and forwards every connection to {@code target}. */
  public static SilentTcpProxy start(InetSocketAddress target) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    SilentTcpProxy proxy = new SilentTcpProxy(server, target);
    Thread accept = new Thread(proxy::acceptLoop, "silent-proxy-accept");
    accept.setDaemon(true);
    accept.start();
    return proxy;
  }

  /** The port it listens on (127.0.0.1). */
  public int port() {
    return server.getLocalPort();
  }

  /** Drops all bytes of the open connections and of new ones, keeping every socket open. */
  public void silence() {
    silentForNew = true;
    links.forEach(l -> l.silent = true);
  }

  /**
   * From now on, a connection that carried no byte in either direction for {@code idle} is silenced
   * (for good) when its next bytes come, as by a NAT or load balancer idle timeout.
   */
  public void silenceIdle(Duration idle) {
    links.forEach(l -> l.lastBytes = System.nanoTime());
    idleNanos = idle.toNanos();
  }

  /** Connections silenced so far, by {@link #silence()} or {@link #silenceIdle}. */
  public long silenced() {
    return links.stream().filter(l -> l.silent).count();
  }

  /** Forwards new connections again; those silenced stay silent. */
  public void heal() {
    silentForNew = false;
  }

  /** Connections accepted so far (open or closed). */
  public int connections() {
    return links.size();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client = null;
      try {
        client = server.accept();
        Socket upstream = new Socket(target.getAddress(), target.getPort());
        Link link = new Link(client, upstream, silentForNew);
        links.add(link);
        pump(link, client, upstream, "up");
        pump(link, upstream, client, "down");
      } catch (IOException e) {
        // closed, or the target refused: the client sees its connection end
        if (client != null) {
          try {
            client.close();
          } catch (IOException ignored) {
            // already closed
          }
        }
      }
    }
  }

  private void pump(Link link, Socket from, Socket to, String direction) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16384];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                  long now = System.nanoTime();
                  long idle = idleNanos;
                  if (idle > 0 && now - link.lastBytes >= idle) {
                    link.silent = true;
                  }
                  link.lastBytes = now;
                  if (!link.silent) {
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                }
                if (!link.silent) {
                  to.shutdownOutput();
                }
              } catch (IOException e) {
                // one side closed
              }
            },
            "silent-proxy-" + direction);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Link l : links) {
      l.client.close();
      l.upstream.close();
    }
  }
}

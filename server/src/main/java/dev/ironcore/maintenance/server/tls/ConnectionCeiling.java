package dev.ironcore.maintenance.server.tls;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At most {@code max} open TCP connections on the webhook's connector ({@code --max-connections}),
 * built on Jetty's {@link NetworkConnectionLimit}. Every connection costs the server memory whether
 * it sends anything or not (measured on the shipped settings: 1,000 idle TLS connections took the
 * RSS from 109 to 143 MiB, 1,000 with half a request 165–194 MiB, above the Deployment's 192 MiB
 * limit), so without a ceiling any client that can reach the port could have the container killed.
 *
 * <p>At the ceiling the connector stops accepting: further connections wait in the kernel's accept
 * queue (no heap of ours) and are accepted as others close. While at the ceiling, a connection that
 * has seen no bytes for {@link #IDLE_TIMEOUT_AT_CEILING} is closed (30 s otherwise), so connections
 * that only sit there free their places for those that wait. A warning is logged when the ceiling
 * is reached (at most once every {@link #WARNING_INTERVAL}, with how often it was reached since),
 * and a callback (the metrics' counter) hears of every time.
 */
public final class ConnectionCeiling extends NetworkConnectionLimit implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionCeiling.class);

  /**
   * Idle timeout of every open connection while the ceiling is reached: 5 seconds, as long as a
   * request may wait for room in the request-body budget.
   */
  public static final Duration IDLE_TIMEOUT_AT_CEILING = Duration.ofSeconds(5);

  /** Least time between two warnings that the ceiling was reached. */
  public static final Duration WARNING_INTERVAL = Duration.ofMinutes(1);

  private final int max;
  private final long idleTimeoutMillis;
  private final LongSupplier nanoTime;
  private final Runnable onReached;
  private long reached;
  private long reachedAtLastWarning;
  private long lastWarningNanos;
  private boolean warned;
  private volatile boolean atCeiling;

  /**
   * @param max most open connections, at least 1
   * @param connector the connector whose connections count (add this to the server as a bean, so
   *     that it starts and stops with it)
   * @param onReached called (under Jetty's lock: must not block) each time the open connections
   *     rise to {@code max}
   * @throws IllegalArgumentException when {@code max} is below 1
   */
  public ConnectionCeiling(int max, AbstractConnector connector, Runnable onReached) {
    this(max, connector, onReached, IDLE_TIMEOUT_AT_CEILING, System::nanoTime);
  }

  /**
   * @param max most open connections, at least 1
   * @param connector the connector whose connections count
   * @param onReached called each time the open connections rise to {@code max}
   * @param idleTimeoutAtCeiling idle timeout of open connections while at the ceiling, positive
   * @param nanoTime monotonic clock in nanoseconds (for the warnings' interval)
   * @throws IllegalArgumentException when {@code max} is below 1 or the timeout not positive
   */
  ConnectionCeiling(
      int max,
      AbstractConnector connector,
      Runnable onReached,
      Duration idleTimeoutAtCeiling,
      LongSupplier nanoTime) {
    super(max, connector);
    if (max < 1) {
      throw new IllegalArgumentException("max connections must be at least 1, got " + max);
    }
    if (idleTimeoutAtCeiling.isNegative() || idleTimeoutAtCeiling.isZero()) {
      throw new IllegalArgumentException("idle timeout at the ceiling must be positive");
    }
    this.max = max;
    this.idleTimeoutMillis = idleTimeoutAtCeiling.toMillis();
    this.nanoTime = nanoTime;
    this.onReached = onReached;
    setEndPointIdleTimeout(idleTimeoutMillis);
  }

  /** Called by Jetty under its lock when the open connections reach {@code max}. */
  @Override
  protected void limit() {
    atCeiling = true;
    super.limit();
    onReached.run();
    long count = ++reached;
    long now = nanoTime.getAsLong();
    if (!warned || now - lastWarningNanos >= WARNING_INTERVAL.toNanos()) {
      LOG.warn(
          "webhook server reached its connection limit of {} (--max-connections): new connections"
              + " wait until others close; connections idle for {} ms are closed meanwhile"
              + " (reached {} times since the last warning)",
          max,
          idleTimeoutMillis,
          count - reachedAtLastWarning);
      warned = true;
      lastWarningNanos = now;
      reachedAtLastWarning = count;
    }
  }

  /** Called by Jetty under its lock when the open connections fall below {@code max}. */
  @Override
  protected void unlimit() {
    atCeiling = false;
    super.unlimit();
  }

  /**
   * Gives a connection opened while at the ceiling the short idle timeout too: Jetty's {@link
   * #limit()} shortens it only for connections already registered, and connections accepted just
   * before the ceiling was reached (two at once from one client) kept 30 s.
   */
  @Override
  public void onOpened(Connection connection) {
    if (atCeiling) {
      EndPoint endPoint = connection.getEndPoint();
      if (endPoint.getIdleTimeout() > idleTimeoutMillis) {
        endPoint.setIdleTimeout(idleTimeoutMillis);
      }
    }
  }
}

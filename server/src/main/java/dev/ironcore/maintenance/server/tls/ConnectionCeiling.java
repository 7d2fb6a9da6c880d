package dev.ironcore.maintenance.server.tls;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * has had no request in flight for {@link #IDLE_TIMEOUT_AT_CEILING} is closed, whether or not it
 * sends bytes (30 s of silence otherwise): connections that only sit there, or keep busy with a
 * byte every few seconds, a TLS handshake that never ends or HTTP/2 PINGs, free their places for
 * those that wait. Requests count through {@link RequestProgress} (the server's handler must be
 * wrapped with {@link RequestProgress#tracking}). Silent connections are closed by Jetty's idle
 * timeout, shortened at the ceiling; connections that send bytes by a sweep of the open connections
 * every {@link #SWEEP_INTERVAL}. A warning is logged when the ceiling is reached (at most once
 * every {@link #WARNING_INTERVAL}, with how often it was reached since), and callbacks (the
 * metrics' counters) hear of every time and of every connection closed at the ceiling without a
 * request in flight, whichever of the two closed it. Idle-timeout closes are heard of on a
 * connector of {@link HttpsConnectors#create}, whose TLS connections report them; on another
 * connector (the plain ports') only the sweep's closes reach the callback.
 */
public final class ConnectionCeiling extends NetworkConnectionLimit
    implements Connection.Listener, HttpsConnectors.IdleCloseListener {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionCeiling.class);

  /**
   * Idle timeout of every open connection while the ceiling is reached: 5 seconds, as long as a
   * request may wait for room in the request-body budget.
   */
  public static final Duration IDLE_TIMEOUT_AT_CEILING = Duration.ofSeconds(5);

  /** How often open connections are checked for requests while at the ceiling. */
  static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);

  /** Least time between two warnings that the ceiling was reached. */
  public static final Duration WARNING_INTERVAL = Duration.ofMinutes(1);

  private final int max;
  private final Limit limit;
  private final long idleTimeoutMillis;
  private final LongSupplier nanoTime;
  private final Runnable onReached;
  private final Runnable onClosedWithoutRequest;
  private final AbstractConnector connector;

  /** When each open connection was first seen at the ceiling; the sweeping thread's only. */
  private Map<EndPoint, Long> seenAtCeiling = new HashMap<>();

  /**
   * Open connections counted as closed without a request (and closing): none is counted twice when
   * the sweep finds one that its idle timeout is closing. Each leaves when it has closed.
   */
  private final Set<EndPoint> closedWithoutRequest = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean sweeping = new AtomicBoolean();
  private long reached;
  private long reachedAtLastWarning;
  private long lastWarningNanos;
  private boolean warned;
  private volatile boolean atCeiling;

  /**
   * @param max most open connections, at least 1
   * @param limit what the warning names: it reads "{@code <listener> reached its connection limit
   *     of <max> (<source>)}"
   * @param connector the connector whose connections count (add this to the server as a bean, so
   *     that it starts and stops with it)
   * @param onReached called (under Jetty's lock: must not block) each time the open connections
   *     rise to {@code max}
   * @param onClosedWithoutRequest called (on Jetty's scheduler or under its lock: must not block)
   *     once for each connection closed at the ceiling because it had no request in flight for
   *     {@link #IDLE_TIMEOUT_AT_CEILING}: a silent one by its idle timeout, one that sends bytes by
   *     the sweep; not for connections their client closes, nor for idle timeouts below the ceiling
   * @throws IllegalArgumentException when {@code max} is below 1
   */
  public ConnectionCeiling(
      int max,
      Limit limit,
      AbstractConnector connector,
      Runnable onReached,
      Runnable onClosedWithoutRequest) {
    this(
        max,
        limit,
        connector,
        onReached,
        onClosedWithoutRequest,
        IDLE_TIMEOUT_AT_CEILING,
        System::nanoTime);
  }

  /**
   * @param max most open connections, at least 1
   * @param limit what the warning names
   * @param connector the connector whose connections count
   * @param onReached called each time the open connections rise to {@code max}
   * @param onClosedWithoutRequest called once for each connection closed at the ceiling for making
   *     no request
   * @param idleTimeoutAtCeiling idle timeout of open connections while at the ceiling, positive
   * @param nanoTime monotonic clock in nanoseconds (for the warnings' interval)
   * @throws IllegalArgumentException when {@code max} is below 1 or the timeout not positive
   */
  ConnectionCeiling(
      int max,
      Limit limit,
      AbstractConnector connector,
      Runnable onReached,
      Runnable onClosedWithoutRequest,
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
    this.limit = limit;
    this.idleTimeoutMillis = idleTimeoutAtCeiling.toMillis();
    this.nanoTime = nanoTime;
    this.onReached = onReached;
    this.onClosedWithoutRequest = onClosedWithoutRequest;
    this.connector = connector;
    setEndPointIdleTimeout(idleTimeoutMillis);
  }

  /**
   * What a warning names: the listener whose connections are limited (e.g. {@code "webhook
   * server"}) and where the limit comes from (e.g. {@code "--max-connections"}).
   */
  public record Limit(String listener, String source) {}

  /** Called by Jetty under its lock when the open connections reach {@code max}. */
  @Override
  protected void limit() {
    atCeiling = true;
    super.limit();
    onReached.run();
    if (sweeping.compareAndSet(false, true)) {
      schedule();
    }
    long count = ++reached;
    long now = nanoTime.getAsLong();
    if (!warned || now - lastWarningNanos >= WARNING_INTERVAL.toNanos()) {
      LOG.warn(
          "{} reached its connection limit of {} ({}): new connections"
              + " wait until others close; connections with no request for {} ms are closed"
              + " meanwhile"
              + " (reached {} times since the last warning)",
          limit.listener(),
          max,
          limit.source(),
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
    RequestProgress.attach(connection, nanoTime);
    if (atCeiling) {
      EndPoint endPoint = connection.getEndPoint();
      if (endPoint.getIdleTimeout() > idleTimeoutMillis) {
        endPoint.setIdleTimeout(idleTimeoutMillis);
      }
    }
  }

  /**
   * True while at the ceiling for a connection with no request in flight: if its idle timeout (then
   * {@link #IDLE_TIMEOUT_AT_CEILING}) closes it, it counts (below the ceiling, after 30 s of
   * silence, it does not). Asked before Jetty acts, which may take the count below the ceiling.
   */
  @Override
  public boolean hearsOfIdleClose(EndPoint network) {
    if (!atCeiling) {
      return false;
    }
    RequestProgress progress = RequestProgress.of(network.getConnection());
    return progress == null || progress.inFlight() == 0;
  }

  /** Counts a connection closed by its idle timeout at the ceiling without a request. */
  @Override
  public void onIdleClose(EndPoint network) {
    countClosedWithoutRequest(network);
  }

  /** Forgets a closed connection that was counted. */
  @Override
  public void onClosed(Connection connection) {
    closedWithoutRequest.remove(connection.getEndPoint());
  }

  private void countClosedWithoutRequest(EndPoint network) {
    if (closedWithoutRequest.add(network)) {
      onClosedWithoutRequest.run();
      if (!network.isOpen()) {
        // closing or closed already, perhaps before it was added: onClosed may not come again
        closedWithoutRequest.remove(network);
      }
    }
  }

  private void schedule() {
    connector
        .getScheduler()
        .schedule(this::sweep, SWEEP_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * While at the ceiling, closes the connections that had no request in flight for {@link
   * #IDLE_TIMEOUT_AT_CEILING} (counted from when the sweep first saw them at the ceiling, or from
   * their last request, whichever is later), then looks again after {@link #SWEEP_INTERVAL}.
   */
  private void sweep() {
    if (!atCeiling) {
      seenAtCeiling = new HashMap<>();
      sweeping.set(false);
      // the ceiling may have been reached again before the flag was cleared: limit() then did
      // not schedule
      if (atCeiling && sweeping.compareAndSet(false, true)) {
        schedule();
      }
      return;
    }
    long now = nanoTime.getAsLong();
    long deadline = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMillis);
    Map<EndPoint, Long> seen = new HashMap<>();
    for (EndPoint endPoint : connector.getConnectedEndPoints()) {
      long first = seenAtCeiling.getOrDefault(endPoint, now);
      RequestProgress progress = RequestProgress.of(endPoint.getConnection());
      if (withoutRequest(now, first, progress, deadline)) {
        countClosedWithoutRequest(endPoint);
        endPoint.close();
      } else {
        seen.put(endPoint, first);
      }
    }
    seenAtCeiling = seen;
    schedule();
  }

  /**
   * True when a connection has had no request in flight for {@code deadlineNanos}: none in flight
   * now, and both when it was first seen at the ceiling and its last request's start or end lie at
   * least that long before {@code nowNanos} (all {@link System#nanoTime()} values).
   *
   * @param progress the connection's requests; null while it speaks no HTTP yet
   */
  static boolean withoutRequest(
      long nowNanos, long firstSeenNanos, RequestProgress progress, long deadlineNanos) {
    long since = firstSeenNanos;
    if (progress != null) {
      if (progress.inFlight() > 0) {
        return false;
      }
      if (progress.lastNanos() - since > 0) {
        since = progress.lastNanos();
      }
    }
    return nowNanos - since >= deadlineNanos;
  }
}

package dev.ironcore.maintenance.api.cache;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Clock;
import java.time.Instant;

/**
 * When an informer's watch last heard from the API server: any event, a {@code BOOKMARK} included,
 * or the watch's submission ({@link StreamedList#submitWatch}). kube-apiserver sends every watch
 * that allows bookmarks (fabric8's informers always ask) a {@code BOOKMARK} about every 60 s from
 * its watch cache, also when nothing changed; so a watch that has had bookmarks and then hears
 * nothing for much longer lost its connection without being told (a NAT, load balancer or firewall
 * that dropped the connection's state; fabric8 sends nothing on a watch and would only notice when
 * it closes the watch itself, 5-10 min later, plus 2 min before it gives up on the close). An API
 * server without a watch cache sends no periodic bookmarks: {@link #bookmarks()} stays false there.
 *
 * <p>One per informer, kept across the informers that replace it; thread-safe.
 */
public final class WatchHeartbeat {
  private final Clock clock;
  private volatile Instant lastHeard;
  private volatile boolean bookmarks;

  /**
   * @param clock stamps what is heard
   */
  public WatchHeartbeat(Clock clock) {
    this.clock = clock;
    this.lastHeard = clock.instant();
  }

  /** A heartbeat nobody reads: for informers that are not watched for silence. */
  public static WatchHeartbeat ignored() {
    return new WatchHeartbeat(Clock.systemUTC());
  }

  /**
   * Notes that the watch heard something now (or was submitted: a new watch counts as heard).
   *
   * @param bookmark true for a {@code BOOKMARK} event
   */
  void heard(boolean bookmark) {
    lastHeard = clock.instant();
    if (bookmark) {
      bookmarks = true;
    }
  }

  /** When a watch last heard an event or bookmark, or was submitted. */
  public Instant lastHeard() {
    return lastHeard;
  }

  /** True once a watch got a {@code BOOKMARK}: the API server sends them periodically. */
  public boolean bookmarks() {
    return bookmarks;
  }

  /** {@code watcher}, noting every event it receives here first. */
  <T> Watcher<T> wrap(Watcher<T> watcher) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, T resource) {
        heard(action == Action.BOOKMARK);
        watcher.eventReceived(action, resource);
      }

      @Override
      public boolean reconnecting() {
        return watcher.reconnecting();
      }

      @Override
      public void onClose() {
        watcher.onClose();
      }

      @Override
      public void onClose(WatcherException cause) {
        watcher.onClose(cause);
      }
    };
  }
}

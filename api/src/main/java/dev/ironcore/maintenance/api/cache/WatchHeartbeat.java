package dev.ironcore.maintenance.api.cache;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What an informer's watch hears, and a way to ask the API server what it should have heard. The
 * watch notes here every event it receives, {@code BOOKMARK}s included, and its submission ({@link
 * StreamedList#submitWatch}). fabric8 sends nothing on a watch: a watch whose connection a NAT,
 * load balancer or firewall dropped without a reset waits for ever while its informer looks up,
 * until fabric8 closes the watch itself (every 5-10 min) and, a minute later, aborts the unanswered
 * close. A watch that hears nothing may also just watch a quiet resource (kube-apiserver sends a
 * watch bookmarks only once the resource's resourceVersion has passed the one it started from);
 * {@link #probe} tells the two apart.
 *
 * <p>One per informer, kept across the informers that replace it; thread-safe.
 */
public final class WatchHeartbeat {
  private final Clock clock;
  private final AtomicLong heard = new AtomicLong();
  private volatile Instant lastHeard;
  private volatile Function<String, CompletableFuture<WatchProbe.Found>> prober =
      rv -> CompletableFuture.failedFuture(new IllegalStateException("no watch to probe yet"));

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

  /** Notes that the watch heard something now (or was submitted: a new watch counts as heard). */
  void heard() {
    lastHeard = clock.instant();
    heard.incrementAndGet();
  }

  /** When a watch last heard an event or bookmark, or was submitted. */
  public Instant lastHeard() {
    return lastHeard;
  }

  /** How many events and bookmarks the watches heard, and submissions, so far. */
  public long heardCount() {
    return heard.get();
  }

  /** Sets how {@link #probe} asks the API server (the informer's current lister). */
  void prober(Function<String, CompletableFuture<WatchProbe.Found>> prober) {
    this.prober = prober;
  }

  /**
   * Asks the API server, with a short watch of its own, whether anything changed after {@code
   * resourceVersion} (the informer's last).
   *
   * @return completes with what that watch found; fails when it got no usable answer
   */
  public CompletableFuture<WatchProbe.Found> probe(String resourceVersion) {
    return prober.apply(resourceVersion);
  }

  /** {@code watcher}, noting here every event it receives (after the watcher took it). */
  <T> Watcher<T> wrap(Watcher<T> watcher) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, T resource) {
        try {
          watcher.eventReceived(action, resource);
        } finally {
          // after the informer took the event's resourceVersion: a probe sent in between (count
          // read, then the resourceVersion) sees the count move and does not blame the watch
          heard();
        }
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

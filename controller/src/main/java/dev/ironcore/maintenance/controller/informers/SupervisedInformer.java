package dev.ironcore.maintenance.controller.informers;

import dev.ironcore.maintenance.api.cache.WatchHeartbeat;
import dev.ironcore.maintenance.api.cache.WatchProbe;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric8 informer that is watched and healed. Every list or watch failure is retried by fabric8
 * with its exponential back-off (never "stop after a watch error"); if the informer stops anyway
 * ({@code stopped()} completes), {@link #check()} replaces it with a new one, after a back-off of 1
 * s doubling to 30 s. The replacement lists afresh: its handlers see every object as added, and
 * objects that vanished while no informer ran are passed to {@code onDelete}, so no event is lost.
 *
 * <p>A watch that ends with 410 Gone (its resourceVersion is older than the API server's watch
 * cache and etcd's compacted history) makes fabric8 list again and watch from the new
 * resourceVersion; so does a watch failure it does not recover by reconnecting. Each such relist is
 * logged with its cause ({@link Relist}) and counted ({@link #relists(Relist)}); objects deleted
 * meanwhile reach {@code onDelete} with {@code deletedFinalStateUnknown}.
 *
 * <p>A watch whose connection a NAT, load balancer or firewall dropped without a reset waits on it
 * for good while its informer looks up and its cache no longer changes; it hears nothing, as a
 * watch of a quiet resource does. Once a watch has heard nothing (no event, no bookmark) for {@link
 * #SILENT_WATCH}, {@link #check()} asks the API server with a short watch of its own from the
 * informer's last resourceVersion ({@link WatchHeartbeat#probe}), again every {@link #PROBE_EVERY}
 * while the silence lasts: when that one gets changes and the informer's watch has still heard
 * nothing {@link #CONFIRM} later, it missed them, and the informer is replaced as a stopped one (a
 * list afresh, a watch on a new connection), logged at WARN and counted as a relist {@link
 * Relist#SILENT}. A quiet resource's probe finds nothing, and nothing happens; 410 Gone proves
 * nothing (see {@link #missed}).
 *
 * <p>State, read by the probes and metrics: {@link #up()} (synced and watching), {@link
 * #downSince()}, {@link #restarts()}, {@link #relists(Relist)}.
 */
public final class SupervisedInformer<T extends HasMetadata> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedInformer.class);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /**
   * How long an informer may be without a watch before it counts as lost: 5 s. The API server ends
   * every watch after its request timeout (5-10 min on an idle cluster) and fabric8 reopens it
   * about 1 s later; such a gap is neither a warning in the log nor a failed readiness probe (each
   * failed probe is a {@code Warning Unhealthy} Event on the pod).
   */
  public static final Duration BRIEF_LOSS = Duration.ofSeconds(5);

  /**
   * How long a watch may hear nothing (no event, no bookmark) before {@link #check()} asks the API
   * server whether it missed anything: 90 s. kube-apiserver sends a watch a bookmark about every 60
   * s once the resource's resourceVersion has passed the one it started from (on a quiet resource,
   * etcd's progress notifications move it; kubeadm has etcd send one every 5 s, etcd's default is
   * 10 min), so a healthy watch of a busy resource is seldom probed; one of a quiet resource is,
   * once a minute (a watch of 2 s). client-go notices a dead HTTP/2 connection after about 45 s
   * (its pings); fabric8 sends nothing on a watch and notices after 6-11 min (it closes the watch
   * itself every 5-10 min and aborts the unanswered close a minute later).
   */
  public static final Duration SILENT_WATCH = Duration.ofSeconds(90);

  /** How often a watch that stays silent is probed again. */
  public static final Duration PROBE_EVERY = Duration.ofSeconds(60);

  /**
   * How long the watch may still hear the changes a probe found before it counts as lost: 10 s (the
   * probe's API server may be ahead of the watch's where several serve the cluster).
   */
  public static final Duration CONFIRM = Duration.ofSeconds(10);

  private final String resource;
  private final Function<WatchHeartbeat, SharedIndexInformer<T>> factory;
  private final Map<String, Function<T, List<String>>> indexers;
  private final Clock clock;
  private final WatchHeartbeat heartbeat;

  /** The probe under way (guarded by this), with what the watch had heard when it was sent. */
  private CompletableFuture<WatchProbe.Found> probe;

  private long heardBeforeProbe;
  private Instant probedAt;
  private String probedResourceVersion;

  /** When a probe found changes the watch had not heard (guarded by this); null otherwise. */
  private Instant changesFoundAt;

  private final java.util.concurrent.atomic.AtomicLong probes =
      new java.util.concurrent.atomic.AtomicLong();
  private final List<ResourceEventHandler<T>> handlers = new CopyOnWriteArrayList<>();
  private volatile SharedIndexInformer<T> current;
  private volatile Instant downSince;
  private volatile int restarts;
  private final java.util.Map<Relist, java.util.concurrent.atomic.AtomicLong> relists =
      new java.util.EnumMap<>(Relist.class);
  private volatile boolean watchFailedSinceList;

  /** The last list or watch failure since the last list, in words ({@link #notSynced()}). */
  private volatile String failureSinceList;

  private Duration backoff = FIRST_BACKOFF;
  private Instant nextRestart = Instant.MIN;
  private boolean closed;

  /** "not watching" was logged and "watching again" not yet (guarded by this). */
  private boolean reportedDown;

  /** The informer was up at a check once: a later gap is a loss, not the first list. */
  private boolean lostOnce;

  /**
   * When {@link #check()} last saw the informer come up (list done, watch open): silence is counted
   * from here at the earliest, so a watch that fabric8 reconnected after an outage is not judged by
   * what it heard before (volatile: read by the metrics).
   */
  private volatile Instant watchingSince;

  /**
   * @param resource name for logs and metrics, e.g. {@code machines}
   * @param factory creates a new, not started informer whose watches note what they hear in the
   *     given heartbeat (called again for each restart, with the same heartbeat)
   * @param indexers added to every informer created
   */
  public SupervisedInformer(
      String resource,
      Function<WatchHeartbeat, SharedIndexInformer<T>> factory,
      Map<String, Function<T, List<String>>> indexers,
      Clock clock) {
    this.resource = resource;
    this.factory = factory;
    this.indexers = indexers;
    this.clock = clock;
    this.heartbeat = new WatchHeartbeat(clock);
    this.downSince = clock.instant();
    for (Relist r : Relist.values()) {
      relists.put(r, new java.util.concurrent.atomic.AtomicLong());
    }
  }

  /** Why an informer listed again after its first list. */
  public enum Relist {
    /**
     * The watch ended with 410 Gone: the resourceVersion it resumes from is no longer in the API
     * server's watch cache or etcd (compacted), so it lists afresh.
     */
    EXPIRED("expired"),
    /** A list or watch failure that fabric8 did not heal by reconnecting the watch. */
    ERROR("error"),
    /**
     * The watch heard nothing for {@link #SILENT_WATCH} or longer while a probe watch got changes
     * after its last resourceVersion that it had not heard {@link #CONFIRM} later: its connection
     * was lost without a word; the informer was replaced.
     */
    SILENT("silent");

    private final String label;

    Relist(String label) {
      this.label = label;
    }

    /** The metric label: {@code expired}, {@code error} or {@code silent}. */
    public String label() {
      return label;
    }
  }

  public String resource() {
    return resource;
  }

  /** Adds a handler; call before {@link #start()}. It stays on every replacement informer. */
  public void addHandler(ResourceEventHandler<T> handler) {
    handlers.add(handler);
  }

  /**
   * Creates and starts the first informer; completes when it has listed once. Once {@link #close()}
   * was called (a stop while the controller starts), it starts nothing and fails at once.
   */
  public synchronized CompletableFuture<Void> start() {
    if (closed) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("informer " + resource + " closed before it started"));
    }
    current = create();
    return current.start().toCompletableFuture();
  }

  private SharedIndexInformer<T> create() {
    SharedIndexInformer<T> informer = factory.apply(heartbeat);
    if (!indexers.isEmpty()) {
      informer.addIndexers(indexers);
    }
    informer.exceptionHandler(
        (started, t) -> {
          // fabric8 calls this for every failure it retries by listing again, never for 410 Gone
          watchFailedSinceList = true;
          String why = SyncFailure.describe(t);
          failureSinceList = (started ? "watch" : "list") + " failed: " + why;
          LOG.warn(
              "informer {}: {} failed, retrying with back-off: {}",
              resource,
              started ? "watch" : "list",
              why);
          LOG.debug("informer {}: the failure", resource, t);
          return true;
        });
    informer.addEventHandler(
        new ResourceEventHandler<T>() {
          @Override
          public void onAdd(T obj) {
            handlers.forEach(h -> h.onAdd(obj));
          }

          @Override
          public void onUpdate(T oldObj, T newObj) {
            handlers.forEach(h -> h.onUpdate(oldObj, newObj));
          }

          @Override
          public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            handlers.forEach(h -> h.onDelete(obj, deletedFinalStateUnknown));
          }

          @Override
          public void onBeforeList(String lastSyncResourceVersion) {
            if (lastSyncResourceVersion != null) {
              relisting(lastSyncResourceVersion);
            }
          }

          @Override
          public void onList(String resourceVersion, boolean remainedEmpty) {
            watchFailedSinceList = false;
            failureSinceList = null;
            LOG.info("informer {}: listed at resourceVersion {}", resource, resourceVersion);
          }
        });
    return informer;
  }

  /**
   * fabric8 lists again after a first list: after a failure it retried ({@code exceptionHandler}
   * was called since the last list) or, otherwise, after 410 Gone (fabric8 7 relists on Gone
   * without calling the handler).
   */
  private void relisting(String lastSyncResourceVersion) {
    Relist cause = watchFailedSinceList ? Relist.ERROR : Relist.EXPIRED;
    relists.get(cause).incrementAndGet();
    if (cause == Relist.EXPIRED) {
      LOG.warn(
          "informer {}: watch expired (410 Gone: resourceVersion {} is too old), listing again",
          resource,
          lastSyncResourceVersion);
    } else {
      LOG.warn(
          "informer {}: listing again after a failure (last resourceVersion {})",
          resource,
          lastSyncResourceVersion);
    }
  }

  /** How often this informer listed again for {@code cause}, over all its replacements. */
  public long relists(Relist cause) {
    return relists.get(cause).get();
  }

  /** The informer currently serving reads (its store and indexes). */
  public SharedIndexInformer<T> informer() {
    return current;
  }

  /** True while the informer has listed and its watch is open. */
  public boolean up() {
    SharedIndexInformer<T> i = current;
    return i != null
        && !i.stopped().toCompletableFuture().isDone()
        && i.hasSynced()
        && i.isWatching();
  }

  /**
   * Why the current informer has not listed yet, for the start's one line when its caches do not
   * sync in time ({@link SyncFailure#timedOut}).
   *
   * @return empty once it has listed; else the last failure fabric8 is retrying, e.g. {@code list
   *     failed: answered 403 Forbidden: machines.compute.ironcore.dev is forbidden: ...} ({@link
   *     SyncFailure#describe}), or {@code no list answer yet} when none failed (the API server is
   *     slow, or fabric8 still retries a 5xx or an unanswered request)
   */
  public Optional<String> notSynced() {
    SharedIndexInformer<T> i = current;
    if (i != null && i.hasSynced()) {
      return Optional.empty();
    }
    String failure = failureSinceList;
    return Optional.of(failure != null ? failure : "no list answer yet");
  }

  /** Since when the informer is not {@link #up()}, or null while it is. */
  public Instant downSince() {
    return downSince;
  }

  /**
   * True while the informer is {@link #up()} or has been without a watch for less than {@link
   * #BRIEF_LOSS} ({@link #check()} notes when it went down, once a second; a gap it has not noted
   * yet is younger than that). Readiness asks this, so a watch the API server ended and fabric8
   * reopens does not fail a probe; a longer loss does.
   */
  public boolean upOrBrieflyLost() {
    return up() || lostBriefly(downSince, clock.instant());
  }

  /**
   * The rule behind {@link #upOrBrieflyLost()} for an informer that is not up.
   *
   * @param downSince when {@link #check()} saw it down first, null when it has not yet
   * @return true when {@code downSince} is null or less than {@link #BRIEF_LOSS} before {@code now}
   */
  static boolean lostBriefly(Instant downSince, Instant now) {
    return downSince == null || now.isBefore(downSince.plus(BRIEF_LOSS));
  }

  /**
   * How long its watch has heard nothing (no event, no bookmark) since it was submitted or came up;
   * zero while the informer is not up (a watch that is not open is not silent: fresh eyes saw the
   * gauge pass 90 s during an outage, though nothing was probed).
   */
  public Duration watchSilence() {
    if (!up()) {
      return Duration.ZERO;
    }
    Duration d =
        Duration.between(silentSince(heartbeat.lastHeard(), watchingSince), clock.instant());
    return d.isNegative() ? Duration.ZERO : d;
  }

  /** What its watches heard, and how to probe the API server for what they should have. */
  public WatchHeartbeat heartbeat() {
    return heartbeat;
  }

  /** How often the informer was replaced after it stopped. */
  public int restarts() {
    return restarts;
  }

  /**
   * Updates {@link #downSince()} and replaces a stopped informer once its back-off passed. Called
   * periodically by {@link InformerWatchdog}.
   */
  public synchronized void check() {
    if (closed || current == null) {
      return;
    }
    Instant now = clock.instant();
    if (up()) {
      if (reportedDown) {
        LOG.info(
            "informer {}: watching again after {} ms",
            resource,
            Duration.between(downSince, now).toMillis());
        reportedDown = false;
      }
      if (downSince != null) {
        watchingSince = now; // came up since the last check
      }
      downSince = null;
      lostOnce = true;
      backoff = FIRST_BACKOFF;
      checkSilence(now);
      return;
    }
    probe = null;
    changesFoundAt = null;
    if (downSince == null) {
      downSince = now;
    }
    // the first list (down since creation) is not reported as a loss
    if (lostOnce && !reportedDown && !lostBriefly(downSince, now)) {
      reportedDown = true;
      LOG.warn(
          "informer {}: not watching since {}",
          resource,
          downSince.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    }
    if (current.stopped().toCompletableFuture().isDone() && !now.isBefore(nextRestart)) {
      restart(now);
    }
  }

  /**
   * Sends a probe once the watch has been silent for {@link #SILENT_WATCH} (and {@link
   * #PROBE_EVERY} after the last one); acts on its answer: replaces the informer when the probe got
   * changes the watch has not heard.
   */
  private void checkSilence(Instant now) {
    if (changesFoundAt != null) {
      if (heartbeat.heardCount() != heardBeforeProbe) {
        changesFoundAt = null; // it heard them: alive
      } else if (!now.isBefore(changesFoundAt.plus(CONFIRM))) {
        changesFoundAt = null;
        relists.get(Relist.SILENT).incrementAndGet();
        LOG.warn(
            "informer {}: its watch heard nothing for {} s while a watch from its last"
                + " resourceVersion {} got changes it has not heard since (its connection was"
                + " dropped without a reset, e.g. by a NAT, load balancer or firewall): listing"
                + " again and watching on a new connection",
            resource,
            Duration.between(silentSince(heartbeat.lastHeard(), watchingSince), now).toSeconds(),
            probedResourceVersion);
        replace(now);
      }
      return;
    }
    if (probe != null) {
      if (!probe.isDone()) {
        return;
      }
      WatchProbe.Found found;
      try {
        found = probe.join();
      } catch (RuntimeException e) {
        found = null; // no usable answer: says nothing about the watch
        LOG.debug("informer {}: probe watch failed: {}", resource, e.toString());
      }
      probe = null;
      probes.incrementAndGet();
      if (missed(found, heardBeforeProbe, heartbeat.heardCount())) {
        changesFoundAt = now;
      }
      return;
    }
    if (silent(heartbeat.lastHeard(), watchingSince, probedAt, now, SILENT_WATCH)) {
      probedAt = now;
      heardBeforeProbe = heartbeat.heardCount(); // before the resourceVersion: see WatchHeartbeat
      String resourceVersion = current.lastSyncResourceVersion();
      // a watch without one, or from "0", would start with every object as ADDED
      if (resourceVersion != null && !resourceVersion.isEmpty() && !resourceVersion.equals("0")) {
        probedResourceVersion = resourceVersion;
        probe = heartbeat.probe(resourceVersion);
      }
    }
  }

  /**
   * Whether a silent watch is to be probed: it has heard nothing for {@code limit} since it last
   * heard something or came up, whichever was later, and the last probe is {@link #PROBE_EVERY}
   * old.
   *
   * @param lastHeard when a watch last heard an event or bookmark, or was submitted
   * @param watchingSince when the informer was last seen coming up (null: not yet)
   * @param probedAt when it was last probed (null: never)
   */
  static boolean silent(
      Instant lastHeard, Instant watchingSince, Instant probedAt, Instant now, Duration limit) {
    return !now.isBefore(silentSince(lastHeard, watchingSince).plus(limit))
        && (probedAt == null || !now.isBefore(probedAt.plus(PROBE_EVERY)));
  }

  /**
   * Whether the probe suggests the watch missed changes: it found changes after the watch's last
   * resourceVersion and the watch heard nothing while the probe ran (a live watch gets the same
   * changes at about the same time; {@link #CONFIRM} more seconds decide). 410 Gone is no evidence:
   * another API server, one restarted since, or one without a watch cache may no longer have the
   * resourceVersion of a quiet, live watch.
   *
   * @param found what the probe found; null when it got no usable answer
   * @param heardBefore {@link WatchHeartbeat#heardCount()} when the probe was sent
   * @param heardNow {@link WatchHeartbeat#heardCount()} now
   */
  static boolean missed(WatchProbe.Found found, long heardBefore, long heardNow) {
    return found == WatchProbe.Found.CHANGES && heardNow == heardBefore;
  }

  /** Probes of silent watches answered so far (with or without a usable answer). */
  public long probes() {
    return probes.get();
  }

  private static Instant silentSince(Instant lastHeard, Instant watchingSince) {
    return watchingSince != null && watchingSince.isAfter(lastHeard) ? watchingSince : lastHeard;
  }

  private void restart(Instant now) {
    LOG.warn("informer {}: stopped, starting a new one (restart {})", resource, restarts + 1);
    restarts++;
    replace(now);
  }

  /**
   * Stops the current informer and starts a new one (after {@link #restart} or a silent watch); the
   * next restart waits for the back-off. Objects the new one does not list reach {@code onDelete}.
   */
  private void replace(Instant now) {
    SharedIndexInformer<T> old = current;
    probe = null;
    probedAt = null;
    changesFoundAt = null;
    nextRestart = now.plus(backoff);
    backoff =
        backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    List<T> before = old.getStore().list();
    old.stop();
    SharedIndexInformer<T> fresh = create();
    current = fresh;
    fresh
        .start()
        .thenRun(
            () -> {
              Set<String> keys = new HashSet<>(fresh.getStore().listKeys());
              before.stream()
                  .filter(o -> !keys.contains(Cache.metaNamespaceKeyFunc(o)))
                  .forEach(o -> handlers.forEach(h -> h.onDelete(o, true)));
            });
  }

  /**
   * Test hook: stops the current informer as a fatal watch error would, so that {@link #check()}
   * must notice and replace it.
   */
  public void kill() {
    current.stop();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (current != null) {
      current.close();
    }
  }
}

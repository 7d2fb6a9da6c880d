package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.patch.PatchTarget;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events (what {@code kubectl describe} and {@code kubectl get events} show),
 * deduplicated the way client-go's recorder ({@code EventCorrelator}) does: an event with the same
 * involved object (kind, namespace, name, uid), type, reason and message as one this recorder wrote
 * less than {@link #DEFAULT_WINDOW} ago is not created again; the existing Event gets its {@code
 * count} incremented and its {@code lastTimestamp} moved (a JSON merge PATCH). The memory of
 * written events is per process (an LRU of {@link #MAX_REMEMBERED}); after a restart the first
 * repeat creates a new Event, as with client-go. Each Event is written in the API server that
 * stores its object ({@link Clusters}: a CAPI Machine's in the CAPI cluster, everything else in the
 * IronCore API). A failure to record is logged, never thrown: events are informational; the write
 * is retried in the background ({@link EventRetries}: 10 s apart, 12 attempts in all, as
 * client-go), so an Event survives an API server that answers 429 or 5xx for a while; one refused
 * with another 4xx (e.g. 403 in a namespace being deleted) is not retried.
 */
public final class EventRecorder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

  /** The event source / reporting component. */
  public static final String COMPONENT = "ironcore-maintenance-controller";

  /**
   * {@code reportingInstance} of every Event this process writes ({@link Instance#name()}), cut to
   * the 128 characters Kubernetes' Event validation allows there.
   */
  static final String INSTANCE = Instance.name(128);

  /** How long after its last occurrence a repeat still updates the same Event object. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);

  /** How many distinct events are remembered for deduplication (least recently used dropped). */
  static final int MAX_REMEMBERED = 4096;

  /** How long {@link #close} may take to write the Events still held or queued. */
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** Locks that serialise the writes of one event key (and of the keys sharing its stripe). */
  static final int LOCK_STRIPES = 64;

  private final Object[] locks = new Object[LOCK_STRIPES];

  {
    for (int i = 0; i < LOCK_STRIPES; i++) {
      locks[i] = new Object();
    }
  }

  private final Clusters clusters;
  private final Clock clock;
  private final Duration window;
  private final EventRetries retries;
  private final EventHold hold;
  private final Map<Key, Written> written =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Written> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  /**
   * Events whose create failed without a clear "no" (5xx, or no answer), by the name that create
   * gave the Event: the API server may have stored it anyway (a 504 after etcd answered late). The
   * next attempt creates it under the same name, and a 409 AlreadyExists says it was stored, so a
   * retry does not make a second one (fresh eyes: two {@code Evicted} events for one eviction after
   * an etcd stall, without any crash). No read of Events: the shipped RBAC grants only create and
   * patch on them (fresh eyes: the LIST this took before was refused with 403 in a cluster, and the
   * Event dropped). Guarded by {@link #written}.
   */
  private final Map<Key, String> uncertain = new java.util.HashMap<>();

  public EventRecorder(KubernetesClient client, Clock clock) {
    this(Clusters.single(client), clock, DEFAULT_WINDOW);
  }

  public EventRecorder(Clusters clusters, Clock clock) {
    this(clusters, clock, DEFAULT_WINDOW);
  }

  /**
   * @param window a repeat within this time of the last occurrence updates the existing Event
   */
  public EventRecorder(Clusters clusters, Clock clock, Duration window) {
    this(clusters, clock, window, new EventRetries());
  }

  /**
   * @param retries where failed writes are retried
   */
  EventRecorder(Clusters clusters, Clock clock, Duration window, EventRetries retries) {
    this.clusters = clusters;
    this.clock = clock;
    this.window = window;
    this.retries = retries;
    this.hold = new EventHold(retries::first, retries::after, System::nanoTime);
  }

  /** What makes two events "the same" (client-go's {@code getEventKey}, minus the source). */
  private record Key(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      String uid,
      String type,
      String reason,
      String message) {}

  /** The Event object written for a key: where it is, its count and when it last occurred. */
  private record Written(
      KubernetesClient client, String namespace, String name, int count, Instant last) {}

  /**
   * Records an event on {@code object} (namespaced; events of cluster-scoped objects go to
   * "default"), or counts a repeat of one recorded within the window.
   *
   * @param type {@code Normal} or {@code Warning}
   * @param reason CamelCase reason, e.g. {@code DrainBlocked}
   * @param message human-readable text (the API server truncates beyond 1 KiB)
   *     <p>Thread-safe; the API call runs under a lock of the event's key only (one of {@link
   *     #LOCK_STRIPES}), so the loops' workers record different events in parallel.
   */
  public void record(HasMetadata object, String type, String reason, String message) {
    record(object, type, reason, message, true);
  }

  /**
   * As {@link #record}, but a repeat within the window is neither created nor counted, and a failed
   * write is not retried in the background: for an event that announces a write right before it is
   * sent, so a write that is refused and retried (a conflict, a denial) does not make it look as if
   * it happened again, and a write is never sent without its event on record. A new process records
   * it anew (its memory is empty).
   *
   * @return true when the event is on record (written now, or within the window before) or was
   *     refused for good (another 4xx, logged; client-go drops such events, and so a broken events
   *     API does not stop the write); false when the API server answered 429 or 5xx or did not
   *     answer (logged): the caller holds its write and tries again later (fresh eyes: an {@code
   *     Evicted} event whose write timed out was left to a background retry while the DELETE went
   *     on, and a crash before the retry lost it)
   */
  public boolean recordOnce(HasMetadata object, String type, String reason, String message) {
    return attempt(object, type, reason, message, false, false).write().getAsBoolean();
  }

  /**
   * As {@link #recordOnce}, but a repeat within the window is one whatever its message: for an
   * announcement whose message carries a time that grows between the attempts of its write ({@code
   * DrainCompleted}'s "drained in 13s"; fresh eyes: a hook removal refused again and again recorded
   * a new DrainCompleted, "in 23s", "in 33s", on every retry while the hook stayed). The Event on
   * record keeps its first message.
   */
  public boolean recordOncePerReason(
      HasMetadata object, String type, String reason, String message) {
    return attempt(object, type, reason, message, false, true).write().getAsBoolean();
  }

  /**
   * As {@link #record}, but returns at once, and the Event is written after the burst it belongs
   * to: held while further background Events keep coming less than 1 s apart (at most 10 s, {@link
   * EventHold}), then its first attempt runs on the recorder's own thread (the one that retries
   * failed writes, {@link EventRetries#first}), as client-go's recorder writes every Event. For an
   * Event that reports a state the caller has already written to the object (a condition), so a
   * burst of such writes (1,000 pools whose Leases stop together, each set {@code Ready=Unknown})
   * neither waits for its Events nor shares the API server with them. The Event's timestamp is the
   * time of this call; it reaches the API server about 1 s later for a single call. When {@link
   * EventRetries#MAX_PENDING} writes already wait, the first attempt is made on the releasing
   * thread instead; a clean stop writes what is still held ({@link #close}), a crash loses it.
   */
  public void recordInBackground(HasMetadata object, String type, String reason, String message) {
    Attempt attempt = attempt(object, type, reason, message, true, false);
    hold.add(attempt.what(), subject(object, reason), attempt.write());
  }

  /**
   * As {@link #recordInBackground}, but a repeat within the window (same reason and message) is
   * neither written nor counted: for a state someone else caused, which every pass sees again until
   * it changes ({@code DrainHookRemoved}; fresh eyes: one hand edit was counted three times within
   * a second, read as three removals).
   */
  public void recordOnceInBackground(
      HasMetadata object, String type, String reason, String message) {
    Attempt attempt = attempt(object, type, reason, message, false, false);
    hold.add(attempt.what(), subject(object, reason), attempt.write());
  }

  /**
   * Writes now, on the caller's thread and in the order they came, the Events of {@code reason} on
   * {@code object} that {@link #recordInBackground} still holds: for progress that a later Event
   * ends, so that the later one is written after it (fresh eyes: a {@code DrainBlocked} "waiting
   * for 2 Machines" held for a burst was written after its drain's {@code DrainCompleted} and
   * {@code PoolDeleted}, in the same second, and read as the drain's last word). Each keeps its
   * timestamp; one the API server does not take is retried in the background as usual. One already
   * handed over from the hold is written as recorded, on the recorder's thread, and may then come
   * after the later Event: taking it too was tried (session 43) and made the drain's worker wait
   * for the write of the same Event key that the recorder's thread was stuck in (a CAPI API server
   * that answered nothing, {@code TwoClustersE2ETest}); the drain matters more than the order.
   */
  public void writeHeldNow(HasMetadata object, String reason) {
    for (var held : hold.take(subject(object, reason))) {
      if (!held.getValue().getAsBoolean()) {
        retries.retry(held.getKey(), held.getValue());
      }
    }
  }

  /** The object (kind, namespace, name, uid) and a reason: what {@link #writeHeldNow} matches. */
  private static String subject(HasMetadata object, String reason) {
    var meta = object.getMetadata();
    return object.getKind()
        + "/"
        + meta.getNamespace()
        + "/"
        + meta.getName()
        + "/"
        + meta.getUid()
        + "#"
        + reason;
  }

  /**
   * For a clean stop, before the clients close: releases the background Events still held ({@link
   * EventHold}) and writes them and any other first attempt already queued, {@link #CLOSE_TIMEOUT}
   * at most in all; retries waiting for their next attempt are dropped (logged), and so is any
   * Event recorded in the background afterwards. {@link #record} still works (on the caller's
   * thread).
   */
  @Override
  public void close() {
    hold.releaseNow();
    retries.close(CLOSE_TIMEOUT);
  }

  private void record(
      HasMetadata object, String type, String reason, String message, boolean countRepeat) {
    Attempt attempt = attempt(object, type, reason, message, countRepeat, false);
    if (!attempt.write().getAsBoolean()) {
      retries.retry(attempt.what(), attempt.write());
    }
  }

  /** One Event write, repeatable: {@code what} names it for the log. */
  private record Attempt(String what, BooleanSupplier write) {}

  /**
   * @param anyMessage the message is not part of what makes a repeat ({@link #recordOncePerReason})
   */
  private Attempt attempt(
      HasMetadata object,
      String type,
      String reason,
      String message,
      boolean countRepeat,
      boolean anyMessage) {
    var meta = object.getMetadata();
    String ns = meta.getNamespace() == null ? "default" : meta.getNamespace();
    Instant at = clock.instant(); // the Event's name: when it happened, to the clock's precision
    Instant now = at.truncatedTo(ChronoUnit.SECONDS);
    Key key =
        new Key(
            object.getApiVersion(),
            object.getKind(),
            meta.getNamespace(),
            meta.getName(),
            meta.getUid(),
            type,
            reason,
            anyMessage ? "" : message);
    return new Attempt(
        reason + " on " + ns + "/" + meta.getName(),
        () -> recordUnderLock(key, object, ns, type, reason, message, at, now, countRepeat));
  }

  /**
   * One attempt under the lock of {@code key}'s stripe; false (logged) when the API server answered
   * 429 or 5xx or did not answer (to be retried); true also when it refused the Event for good
   * (another 4xx, logged; client-go drops those too).
   */
  private boolean recordUnderLock(
      Key key,
      HasMetadata object,
      String ns,
      String type,
      String reason,
      String message,
      Instant at,
      Instant now,
      boolean countRepeat) {
    synchronized (locks[Math.floorMod(key.hashCode(), LOCK_STRIPES)]) {
      var meta = object.getMetadata();
      // an earlier attempt got no answer or a 5xx: said at WARN then, a repeat only at DEBUG (an
      // outage of seconds logged each Event 8 times, 60 WARN lines in 7 s)
      boolean failedBefore = uncertainName(key) != null;
      try {
        Written previous = remembered(key);
        if (previous != null && previous.last().plus(window).isAfter(now)) {
          if (!countRepeat) {
            return true;
          }
          Written next = repeat(previous, now);
          if (next != null) {
            remember(key, next);
            return true;
          }
        }
        KubernetesClient client =
            String.valueOf(object.getApiVersion()).startsWith(Names.CAPI_GROUP + "/")
                ? clusters.capi()
                : clusters.ironcore();
        String earlier = uncertainName(key);
        String name = earlier != null ? earlier : eventName(meta.getName(), at);
        try {
          // a new name taken already: another Event of the object in the same nanosecond (two
          // workers; a fixed clock), or of another process's clock: the next nanosecond
          for (int later = 1; ; later++) {
            try {
              create(client, object, ns, name, type, reason, message, now);
              break;
            } catch (KubernetesClientException e) {
              if (earlier != null || e.getCode() != 409 || later > NAME_ATTEMPTS) {
                throw e;
              }
              name = eventName(meta.getName(), at.plusNanos(later));
            }
          }
        } catch (KubernetesClientException e) {
          if (earlier != null && e.getCode() == 409) {
            // the create that went unanswered was stored after all
            clearUncertain(key);
            remember(key, new Written(client, ns, name, 1, now));
            return true;
          }
          if (dev.ironcore.maintenance.controller.runtime.ApiFailure.isServerSide(e)) {
            markUncertain(key, name);
          }
          throw e;
        }
        clearUncertain(key);
        remember(key, new Written(client, ns, name, 1, now));
        return true;
      } catch (RuntimeException e) {
        if (!dev.ironcore.maintenance.controller.runtime.ApiFailure.isServerSide(e)
            && dev.ironcore.maintenance.controller.runtime.ApiFailure.retryAfter(e) == null) {
          // refused for good (e.g. 403 in a namespace being deleted): as client-go, not retried
          LOG.warn(
              "could not record event {} on {}/{} (refused, not retried): {}",
              reason,
              ns,
              meta.getName(),
              dev.ironcore.maintenance.controller.runtime.ApiFailure.describe(e));
          return true;
        }
        boolean again =
            failedBefore && dev.ironcore.maintenance.controller.runtime.ApiFailure.isServerSide(e);
        LOG.atLevel(again ? org.slf4j.event.Level.DEBUG : org.slf4j.event.Level.WARN)
            .log(
                "could not record event {} on {}/{} ({}): {}",
                reason,
                ns,
                meta.getName(),
                countRepeat
                    ? "retried every " + EventRetries.INTERVAL.toSeconds() + " s"
                    : "its write waits and is retried with it",
                dev.ironcore.maintenance.controller.runtime.ApiFailure.describe(e));
        return false;
      }
    }
  }

  /** The name the unanswered create of {@code key} gave its Event; null when none. */
  private String uncertainName(Key key) {
    synchronized (written) {
      return uncertain.get(key);
    }
  }

  private void clearUncertain(Key key) {
    synchronized (written) {
      uncertain.remove(key);
    }
  }

  private void markUncertain(Key key, String name) {
    synchronized (written) {
      if (uncertain.size() >= MAX_REMEMBERED) {
        uncertain.clear(); // bounded: at worst a retry makes a second Event, as before
      }
      uncertain.put(key, name);
    }
  }

  /**
   * A new Event's name, as client-go names one: the object's name (at most {@link #NAME_PREFIX_MAX}
   * characters of it, no trailing {@code -} or {@code .}), a dot and the time the Event was
   * recorded in nanoseconds since the epoch (to the clock's precision), 16 hex digits. {@code
   * kubectl get events} lists by name, so an object's Events list in the order they happened, also
   * one written late (held for a burst, retried) (fresh eyes: with random digits, a drain's {@code
   * PoolDeleted} was listed before its {@code DrainStarted}; their timestamps are whole seconds). A
   * name taken already (the same nanosecond) is tried again a nanosecond later. Chosen here rather
   * than by {@code generateName}, so that a create retried after no answer can be told apart from a
   * new one.
   *
   * @param at the Event's time (a held Event's is that of what it reports)
   */
  static String eventName(String objectName, Instant at) {
    String prefix =
        objectName.length() > NAME_PREFIX_MAX
            ? objectName.substring(0, NAME_PREFIX_MAX)
            : objectName;
    prefix = prefix.replaceAll("[-.]+$", "");
    long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
    return prefix + "." + String.format("%016x", nanos);
  }

  /** New names tried, a nanosecond apart, when a name is taken (409) before giving up. */
  static final int NAME_ATTEMPTS = 8;

  /** Keeps an Event's name within the 253 characters of a DNS subdomain. */
  static final int NAME_PREFIX_MAX = 253 - 17;

  private Written remembered(Key key) {
    synchronized (written) {
      return written.get(key);
    }
  }

  private void remember(Key key, Written w) {
    synchronized (written) {
      written.put(key, w);
    }
  }

  /**
   * PATCHes count and lastTimestamp; null when the Event is gone (expired), so a new one is due.
   */
  private Written repeat(Written previous, Instant now) {
    int count = previous.count() + 1;
    String patch = "{\"count\":" + count + ",\"lastTimestamp\":\"" + Objects.toString(now) + "\"}";
    try {
      // not withName(..).patch: fabric8 GETs the Event first, which the shipped RBAC does not
      // grant (events: create, patch), so every repeat failed 403 in a cluster (fresh eyes)
      PatchTarget.of(
              previous.client(),
              io.fabric8.kubernetes.api.model.Event.class,
              previous.namespace(),
              previous.name())
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
    return new Written(previous.client(), previous.namespace(), previous.name(), count, now);
  }

  private Event create(
      KubernetesClient client,
      HasMetadata object,
      String ns,
      String name,
      String type,
      String reason,
      String message,
      Instant now) {
    var meta = object.getMetadata();
    String time = now.toString();
    return client
        .v1()
        .events()
        .inNamespace(ns)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .endMetadata()
                .withInvolvedObject(
                    new ObjectReferenceBuilder()
                        .withApiVersion(object.getApiVersion())
                        .withKind(object.getKind())
                        .withName(meta.getName())
                        .withNamespace(meta.getNamespace())
                        .withUid(meta.getUid())
                        .withResourceVersion(meta.getResourceVersion())
                        .build())
                .withType(type)
                .withReason(reason)
                .withMessage(message)
                .withNewSource()
                .withComponent(COMPONENT)
                .endSource()
                .withReportingComponent(COMPONENT)
                .withReportingInstance(INSTANCE)
                .withFirstTimestamp(time)
                .withLastTimestamp(time)
                .withCount(1)
                .build())
        .create();
  }
}

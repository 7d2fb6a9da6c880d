package dev.ironcore.maintenance.controller.health;

import dev.ironcore.maintenance.controller.runtime.ApiFailure;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the API server that holds the pools' Leases answers, as the health loop needs to know: a
 * pool's agent cannot renew its Lease while that API server is down or frozen, so such silence must
 * not set pools {@code Ready=Unknown}. Sends one {@code GET /readyz} every {@link #INTERVAL} (never
 * two at a time). Any answer but a 5xx counts (401/403/404 too: an API server that refuses the
 * probe still serves Leases); after {@link #PATIENCE_TICKS} ticks in a row without one (about 6 s:
 * no connection, 5xx answers, or a probe still in flight) the API server counts as unreachable
 * until the next answer. Ticks, not wall time: a pause of this process is not taken for the API
 * server's, and a single failed probe is not an outage. {@link #observedSince()} is then the time
 * of that answer: every pool's grace period counts from it, as from a restart of this process
 * (IronCore IEP-15: the first sighting starts the timer).
 *
 * <p>A connection that went silent without a reset (a load balancer, NAT or firewall that dropped
 * its state) stays silent for ever: the JDK's HTTP/2 client keeps sending every request over it,
 * and the watches' WebSockets wait on theirs, so the process would never see the API server again
 * (fresh eyes, session 47: 4 minutes after the network came back, nothing had reconnected; Go's
 * client-go pings its HTTP/2 connections and closes a silent one within about 45 s). Once this
 * process's probe has been silent for {@link #STALL_TICKS} ticks, the probe also goes over a new
 * connection ({@code freshProbe}, one at a time, 10 s each); when that one is answered while this
 * process's probe stays silent {@link #CONFIRM_TICKS} ticks longer, its connections are {@link
 * #stalled()}: {@code /healthz} fails, so that Kubernetes restarts the process, which connects
 * anew. Only silence counts (a probe still in flight or timed out): an answer, a 5xx too (e.g. an
 * API server shutting down behind a load balancer), or a refused connection (the JDK opens a new
 * one for the next request) is no stall, and an API server that is down answers neither, so an
 * outage does not restart the controller.
 *
 * <p>Whoever waits for the API server ({@link #onAnswerAgain}: the loops, whose failed passes back
 * off up to 30 s) hears when it answers again after a probe failed or was answered 5xx, or after it
 * counted as unreachable: so work goes on soon after its return, not after the back-off.
 */
public final class ApiServerReach implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiServerReach.class);

  /** Time between two probes. */
  public static final Duration INTERVAL = Duration.ofSeconds(2);

  /** Ticks in a row without an answer after which the API server counts as unreachable. */
  public static final int PATIENCE_TICKS = 3;

  /**
   * Ticks of silence on this process's connection (about 20 s) after which the probe also goes over
   * a new connection.
   */
  public static final int STALL_TICKS = 10;

  /**
   * Ticks this process's probe must stay silent after a new connection was answered before its
   * connections count as stalled (an API server coming back answers both within them).
   */
  public static final int CONFIRM_TICKS = 3;

  private final Supplier<CompletableFuture<Integer>> probe;
  private final Supplier<CompletableFuture<Integer>> freshProbe;
  private boolean freshInFlight;
  private Integer freshAnsweredAt;
  private Instant stalledSince;
  private int silentTicks;
  private boolean lastTimedOut;
  private boolean reportedFreshSilence;
  private boolean reportedFreshFailure;
  private final Clock clock;
  private final String what;

  /** What an unreachable API server means for the controller, for the log. */
  private final String unreachableMeans;

  /** What its answering again means, for the log (may be empty). */
  private final String backMeans;

  private ScheduledExecutorService ticker;

  private Instant since = Instant.EPOCH;
  private Instant lostAt;
  private CompletableFuture<Integer> inFlight;
  private int ticksWithoutAnswer;
  private String lastProblem = "none";

  /** A probe failed or was answered 5xx since the last good answer. */
  private boolean troubleSinceAnswer;

  /** When {@link #onAnswerAgain} listeners last ran; null before. */
  private Instant listenersRanAt;

  /** The probe sent by the current tick, its completion handler attached outside the lock. */
  private CompletableFuture<Integer> sentThisTick;

  /**
   * The least time between two runs of the {@link #onAnswerAgain} listeners: an API server that
   * flaps does not take the loops' back-off away at every answer.
   */
  public static final Duration LISTENERS_AT_MOST_EVERY = Duration.ofSeconds(10);

  private final List<Runnable> answerAgainListeners = new CopyOnWriteArrayList<>();

  /**
   * @param probe sends one probe; completes with the HTTP status, or exceptionally when there was
   *     no answer
   * @param freshProbe sends one probe over a new connection, not this process's
   * @param what the API server, for the log (e.g. its URL)
   */
  ApiServerReach(
      Supplier<CompletableFuture<Integer>> probe,
      Supplier<CompletableFuture<Integer>> freshProbe,
      Clock clock,
      String what) {
    this(probe, freshProbe, clock, what, IRONCORE_UNREACHABLE, IRONCORE_BACK);
  }

  private ApiServerReach(
      Supplier<CompletableFuture<Integer>> probe,
      Supplier<CompletableFuture<Integer>> freshProbe,
      Clock clock,
      String what,
      String unreachableMeans,
      String backMeans) {
    this.probe = probe;
    this.freshProbe = freshProbe;
    this.clock = clock;
    this.what = what;
    this.unreachableMeans = unreachableMeans;
    this.backMeans = backMeans;
  }

  private static final String IRONCORE_UNREACHABLE =
      "no pool is set Ready=Unknown until its agent had the grace period after the API server"
          + " answers again";
  private static final String IRONCORE_BACK = ": every pool's grace period counts from now";

  /**
   * Probes the CAPI API server of a two-cluster installation, as {@link #of} the IronCore one: its
   * connection is kept busy (a NAT or load balancer does not drop it as idle: the informers' probe
   * watches and the drains' writes go over it) and a stall fails {@code /healthz}; its reachability
   * feeds no pool's health.
   */
  public static ApiServerReach ofCapi(KubernetesClient client, Clock clock) {
    ApiServerReach ironcoreWording = of(client, clock);
    return new ApiServerReach(
        ironcoreWording.probe,
        ironcoreWording.freshProbe,
        clock,
        ironcoreWording.what + " (CAPI Machines)",
        "drains can write no CAPI Machine (hooks, finalizers) until it answers again",
        "");
  }

  /**
   * Probes {@code GET <master URL>/readyz} of {@code client}'s API server; call {@link #start()}.
   */
  public static ApiServerReach of(KubernetesClient client, Clock clock) {
    String master = client.getMasterUrl().toString();
    URI readyz = URI.create(master.endsWith("/") ? master : master + "/").resolve("readyz");
    HttpClient http = client.getHttpClient();
    // sent once (the shared Config keeps fabric8's retries, which would stretch a probe to minutes)
    io.fabric8.kubernetes.client.Config config =
        new io.fabric8.kubernetes.client.ConfigBuilder(client.getConfiguration())
            .withRequestRetryBackoffLimit(0)
            .build();
    return new ApiServerReach(
        () -> {
          HttpRequest request =
              http.newHttpRequestBuilder().uri(readyz).timeout(30, TimeUnit.SECONDS).build();
          return http.sendAsync(request, String.class).thenApply(r -> r.code());
        },
        () -> {
          // a client of its own (its own connection), closed after the answer (on Java 17 the
          // JDK's client and its connection go with the garbage collector)
          HttpClient fresh =
              new dev.ironcore.maintenance.api.client.KubeHttpClientFactory()
                  .newBuilder(config)
                  .build();
          try {
            HttpRequest request =
                fresh.newHttpRequestBuilder().uri(readyz).timeout(10, TimeUnit.SECONDS).build();
            return fresh
                .sendAsync(request, String.class)
                .thenApply(r -> r.code())
                .whenComplete((code, e) -> fresh.close());
          } catch (RuntimeException e) {
            fresh.close();
            throw e;
          }
        },
        clock,
        master);
  }

  /**
   * Runs {@code listener} (on the thread that completed the probe, never under this object's lock;
   * it must not block) when the API server answers a probe (any status below 500) after a probe
   * failed or was answered 5xx, or after it counted as unreachable: an outage, a restart or a
   * stalled connection is over, however short. At most once per {@link #LISTENERS_AT_MOST_EVERY}.
   * Several listeners run in the order added; one that throws is logged and the rest run.
   *
   * @return closing it removes the listener
   */
  public AutoCloseable onAnswerAgain(Runnable listener) {
    answerAgainListeners.add(listener);
    return () -> answerAgainListeners.remove(listener);
  }

  /**
   * The API server probed, for the log: its URL, e.g. {@code https://10.0.0.1:6443/}, followed by
   * {@code (CAPI Machines)} for {@link #ofCapi}.
   */
  public String apiServer() {
    return what;
  }

  /** Starts probing on a daemon thread of its own. */
  public synchronized ApiServerReach start() {
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "api-server-reach");
              t.setDaemon(true);
              return t;
            });
    ticker.scheduleWithFixedDelay(this::tick, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Since when the API server has answered without a gap this process saw: {@link Instant#EPOCH}
   * when it never failed, the time of its first answer after it failed, or the clock's now while it
   * does not answer.
   */
  public synchronized Instant observedSince() {
    return lostAt != null ? clock.instant() : since;
  }

  /**
   * Whether the API server counts as reachable: false from {@link #PATIENCE_TICKS} probe intervals
   * without an answer (about 6 s) until its next answer; true before the first probe.
   */
  public synchronized boolean reachable() {
    return lostAt == null;
  }

  /**
   * Whether this process's connections to the API server are stalled: its probe has been silent (in
   * flight or timed out) for more than {@link #STALL_TICKS} ticks, a probe over a new connection
   * was answered, and its own stayed silent {@link #CONFIRM_TICKS} ticks longer; until its own
   * probe gets any answer or fails otherwise. {@code /healthz} fails while this is true.
   */
  public synchronized boolean stalled() {
    return stalledSince != null;
  }

  /**
   * One probe tick: counts the tick without an answer, loses the API server after {@link
   * #PATIENCE_TICKS} of them in a row, and sends a probe unless one is in flight; counts the tick
   * of silence, and past {@link #STALL_TICKS} of them probes over a new connection (built and sent
   * outside the lock) or, {@link #CONFIRM_TICKS} after that one was answered, declares the
   * connections stalled.
   */
  void tick() {
    boolean fresh;
    CompletableFuture<Integer> sent;
    synchronized (this) {
      fresh = tickLocked();
      sent = sentThisTick;
      sentThisTick = null;
    }
    if (sent != null) {
      // outside the lock: an answer already there runs the listeners on this thread
      sent.whenComplete(
          (code, failure) -> {
            if (answered(sent, code, failure)) {
              answerAgainListeners.forEach(ApiServerReach::runListener);
            }
          });
    }
    if (fresh) {
      probeFresh();
    }
  }

  private synchronized boolean tickLocked() {
    ticksWithoutAnswer++;
    if (ticksWithoutAnswer > PATIENCE_TICKS && lostAt == null) {
      lostAt = clock.instant();
      LOG.warn(
          "API server {} unreachable (no answer, or 5xx only, to GET /readyz for {} probe intervals of {} s;"
              + " last: {}): {}",
          what,
          PATIENCE_TICKS,
          INTERVAL.toSeconds(),
          lastProblem,
          unreachableMeans);
    }
    if (inFlight != null || lastTimedOut) {
      silentTicks++;
    }
    boolean fresh = false;
    if (stalledSince == null && freshAnsweredAt != null) {
      if (silentTicks >= freshAnsweredAt + CONFIRM_TICKS) {
        stalledSince = clock.instant();
        LOG.error(
            "API server {} answers on a new connection but not on this process's connections"
                + " (silent for {} probe intervals of {} s; last: {}: dropped without a reset, e.g."
                + " by a load balancer, NAT or firewall); /healthz fails from now, so that"
                + " Kubernetes restarts the controller, which connects anew",
            what,
            silentTicks,
            INTERVAL.toSeconds(),
            lastProblem);
      }
    } else if (stalledSince == null && silentTicks > STALL_TICKS && !freshInFlight) {
      freshInFlight = true;
      fresh = true;
    }
    if (inFlight != null) {
      return fresh;
    }
    Instant sentAt = clock.instant();
    CompletableFuture<Integer> sent;
    try {
      sent = probe.get();
    } catch (RuntimeException e) {
      lastProblem = "could not send it: " + ApiFailure.rootCause(e);
      troubleSinceAnswer = true;
      return fresh;
    }
    inFlight = sent;
    sentThisTick = sent;
    lastProblem = "sent at " + sentAt + ", no answer yet";
    return fresh;
  }

  private void probeFresh() {
    CompletableFuture<Integer> sent;
    try {
      sent = freshProbe.get();
    } catch (RuntimeException e) {
      synchronized (this) {
        if (!reportedFreshFailure) {
          reportedFreshFailure = true;
          LOG.warn(
              "API server {}: cannot probe it over a new connection: {}",
              what,
              ApiFailure.rootCause(e));
        }
      }
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete(this::freshAnswered);
  }

  private synchronized void freshAnswered(Integer code, Throwable e) {
    freshInFlight = false;
    if (e != null || code >= 500) {
      if (!reportedFreshSilence && stalledSince == null) {
        reportedFreshSilence = true;
        LOG.info(
            "API server {} does not answer a new connection either ({}): an outage, not a"
                + " stalled connection",
            what,
            e != null ? "failed: " + ApiFailure.rootCause(e) : "answered " + code);
      }
      return;
    }
    if (stalledSince == null && freshAnsweredAt == null && silentTicks > STALL_TICKS) {
      freshAnsweredAt = silentTicks;
    }
  }

  /** Whether a probe failed by timing out (silence), not by a refused connection or the like. */
  private static boolean timedOut(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.net.http.HttpTimeoutException
          || c instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static void runListener(Runnable listener) {
    try {
      listener.run();
    } catch (RuntimeException e) {
      LOG.warn("a listener for the API server's answering again failed", e);
    }
  }

  /**
   * Takes a probe's outcome.
   *
   * @return true when it is a good answer after trouble ({@link #onAnswerAgain})
   */
  private synchronized boolean answered(
      CompletableFuture<Integer> sent, Integer code, Throwable e) {
    if (inFlight == sent) {
      inFlight = null;
    }
    lastTimedOut = e != null && timedOut(e);
    if (!lastTimedOut) {
      // any answer (a 5xx too) or another failure: this connection is not silent
      silentTicks = 0;
      freshAnsweredAt = null;
      reportedFreshSilence = false;
      if (stalledSince != null) {
        LOG.info(
            "API server {} answers this process's connections again (stalled since {}): /healthz"
                + " passes again",
            what,
            stalledSince);
        stalledSince = null;
      }
    }
    if (e != null) {
      lastProblem = "failed: " + ApiFailure.rootCause(e);
      troubleSinceAnswer = true;
      return false;
    }
    if (code >= 500) {
      lastProblem = "answered " + code;
      troubleSinceAnswer = true;
      return false;
    }
    ticksWithoutAnswer = 0;
    boolean again = troubleSinceAnswer || lostAt != null;
    troubleSinceAnswer = false;
    Instant now = clock.instant();
    if (again
        && listenersRanAt != null
        && now.isBefore(listenersRanAt.plus(LISTENERS_AT_MOST_EVERY))) {
      again = false;
    }
    if (again) {
      listenersRanAt = now;
    }
    if (lostAt != null) {
      since = clock.instant();
      LOG.info(
          "API server {} answers again (unreachable since {} or earlier){}",
          what,
          lostAt,
          backMeans);
      lostAt = null;
    }
    return again;
  }

  @Override
  public synchronized void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
  }
}

package dev.ironcore.maintenance.controller.health;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
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
 * two at a time). The API server counts as unreachable from a probe that failed (no connection, or
 * a 5xx answer: it or its etcd does not serve) or that is still unanswered after {@link
 * #PATIENCE_TICKS} further ticks (about 6 s; ticks, not wall time, so a pause of this process is
 * not taken for the API server's), until a probe gets any other answer (401/403/404 count as
 * answers: an API server that refuses the probe still serves Leases). {@link #observedSince()} is
 * then the time of that answer: every pool's grace period counts from it, as from a restart of this
 * process (the first sighting starts the timer, IronCore IEP-15 as {@code machinepool_lifecycle}
 * does).
 */
public final class ApiServerReach implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiServerReach.class);

  /** Time between two probes. */
  public static final Duration INTERVAL = Duration.ofSeconds(2);

  /** Ticks a probe may stay unanswered before the API server counts as unreachable. */
  public static final int PATIENCE_TICKS = 3;

  private final Supplier<CompletableFuture<Integer>> probe;
  private final Clock clock;
  private final String what;
  private ScheduledExecutorService ticker;

  private Instant since = Instant.EPOCH;
  private Instant lostAt;
  private CompletableFuture<Integer> inFlight;
  private Instant inFlightSince;
  private int ticksWaiting;

  /**
   * @param probe sends one probe; completes with the HTTP status, or exceptionally when there was
   *     no answer
   * @param what the API server, for the log (e.g. its URL)
   */
  ApiServerReach(Supplier<CompletableFuture<Integer>> probe, Clock clock, String what) {
    this.probe = probe;
    this.clock = clock;
    this.what = what;
  }

  /**
   * Probes {@code GET <master URL>/readyz} of {@code client}'s API server; call {@link #start()}.
   */
  public static ApiServerReach of(KubernetesClient client, Clock clock) {
    String master = client.getMasterUrl().toString();
    URI readyz = URI.create(master.endsWith("/") ? master : master + "/").resolve("readyz");
    HttpClient http = client.getHttpClient();
    return new ApiServerReach(
        () -> {
          HttpRequest request =
              http.newHttpRequestBuilder().uri(readyz).timeout(30, TimeUnit.SECONDS).build();
          return http.sendAsync(request, String.class).thenApply(r -> r.code());
        },
        clock,
        master);
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
    ticker.scheduleWithFixedDelay(
        this::tick, 0, INTERVAL.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
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

  /** One probe tick: sends a probe, or counts how long the one in flight has waited. */
  synchronized void tick() {
    if (inFlight != null) {
      ticksWaiting++;
      if (ticksWaiting >= PATIENCE_TICKS) {
        lost("no answer to GET /readyz sent at " + inFlightSince);
      }
      return;
    }
    ticksWaiting = 0;
    CompletableFuture<Integer> sent;
    try {
      sent = probe.get();
    } catch (RuntimeException e) {
      lost("GET /readyz failed: " + e);
      return;
    }
    inFlight = sent;
    inFlightSince = clock.instant();
    sent.whenComplete((code, failure) -> answered(sent, code, failure));
  }

  private synchronized void answered(CompletableFuture<Integer> sent, Integer code, Throwable e) {
    if (inFlight == sent) {
      inFlight = null;
    }
    if (e != null) {
      lost("GET /readyz failed: " + (e.getCause() != null ? e.getCause() : e));
    } else if (code >= 500) {
      lost("GET /readyz answered " + code);
    } else if (lostAt != null) {
      since = clock.instant();
      LOG.info(
          "API server {} answers again (unreachable since {} or earlier): every pool's grace period"
              + " counts from now",
          what,
          lostAt);
      lostAt = null;
    }
  }

  private void lost(String why) {
    if (lostAt == null) {
      lostAt = clock.instant();
      LOG.warn(
          "API server {} unreachable ({}): no pool is set Ready=Unknown until its agent had the"
              + " grace period after the API server answers again",
          what,
          why);
    }
  }

  @Override
  public synchronized void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
  }
}

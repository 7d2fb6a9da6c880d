package dev.ironcore.maintenance.controller;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Set;

/**
 * With {@code --leader-elect}: refuses every write of the controller's clients (POST, PUT, PATCH,
 * DELETE: patches, evictions, conditions, Events; in both clusters) unless this replica leads and
 * renewed the Lease within the renew deadline ({@link RenewalWatchdog#notLeading}); reads (GET,
 * LIST, WATCH) and the leader election's own Lease requests ({@code coordination.k8s.io}; the
 * controller writes no other Lease) always pass. A fabric8 {@link Interceptor}: the check runs as
 * each request is sent, so a replica resumed after a pause cannot evict or announce anything in the
 * moment before its watchdog ends it (fresh eyes: a leader paused with SIGSTOP for 27 s wrote
 * {@code Evicted} Events once resumed, for Machines the new leader had evicted 8 s earlier and for
 * two whose taint had been removed; only the watchdog's 250 ms race kept their DELETEs from going
 * out).
 *
 * <p>A refused request fails with {@link NotLeading}; the loops treat it as any failed request
 * (logged, retried) until the watchdog ends the process.
 */
public final class LeadershipGate implements Interceptor {
  private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

  private volatile RenewalWatchdog watchdog;

  /** Follows {@code watchdog} from now (the elector's, once it runs). */
  public void follow(RenewalWatchdog watchdog) {
    this.watchdog = watchdog;
  }

  /**
   * True while this replica leads within its renew deadline (what {@code
   * leader_election_master_status} reports, as client-go's leader election does).
   */
  public boolean leads() {
    RenewalWatchdog w = watchdog;
    return w != null && w.notLeading() == null;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    String refusal = refusal(request.method(), request.uri().getRawPath());
    if (refusal != null) {
      throw new NotLeading(refusal);
    }
  }

  /**
   * Why a {@code method} request to {@code path} must not be sent now, or null when it may.
   *
   * @param method the HTTP method
   * @param path the request's path (any prefix of the API server's URL included)
   */
  String refusal(String method, String path) {
    if (READS.contains(method) || path.contains("/apis/coordination.k8s.io/")) {
      return null;
    }
    RenewalWatchdog w = watchdog;
    String why = w == null ? "not leading (yet)" : w.notLeading();
    return why == null
        ? null
        : "not sent: " + method + " " + path + ": this replica must not write: " + why;
  }

  /** A write refused because this replica may no longer lead. */
  public static final class NotLeading extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    NotLeading(String message) {
      super(message);
    }
  }
}

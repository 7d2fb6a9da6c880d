package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.client.RefusedRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election with fabric8's {@code LeaderElector} on a {@code coordination.k8s.io/v1} Lease
 * (default name {@value #LEASE_NAME}, {@code --leader-election-id}): lease 15 s, renew deadline 10
 * s, retry 2 s, as controller-runtime's defaults. The loops run only while leading; losing the
 * lease, or going longer than the renew deadline without renewing it (also while the API server
 * does not answer at all: {@link RenewalWatchdog}), ends the process (exit code 1), so a restarted
 * pod starts from a fresh cache, as controller-runtime does. On a clean stop (SIGTERM) the process
 * releases the Lease itself, so a successor need not wait for it to expire.
 */
public final class LeaderElection {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Default name of the leader-election Lease ({@code --leader-election-id}). */
  public static final String LEASE_NAME = "ironcore-maintenance-controller";

  /** How long a Lease lasts after its last renewal before a standby may take it. */
  static final Duration LEASE_DURATION = Duration.ofSeconds(15);

  /**
   * How long a leader may go without renewing before it stops (well inside {@link #LEASE_DURATION},
   * so it has stopped before a standby can lead).
   */
  static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);

  private LeaderElection() {}

  /**
   * Checks {@code watchdog} every 250 ms on a daemon thread and ends the process (exit code 1) once
   * the leader went longer than the renew deadline without renewing, unless it is {@code stopping}
   * (releasing the Lease on SIGTERM).
   */
  private static void startWatching(
      RenewalWatchdog watchdog,
      String identity,
      String lease,
      java.util.function.BooleanSupplier stopping) {
    Thread t =
        new Thread(
            () -> {
              while (true) {
                try {
                  Thread.sleep(250);
                } catch (InterruptedException e) {
                  return;
                }
                Duration overdue = watchdog.overdue();
                if (overdue != null && !stopping.getAsBoolean()) {
                  LOG.error(
                      "leader election: {} could not renew Lease {} for {} ms (renew deadline {}"
                          + " s; the API server did not answer in time, or this process was paused); another"
                          + " replica may lead"
                          + " once the Lease expires, so this one stops; exiting",
                      identity,
                      lease,
                      overdue.toMillis(),
                      watchdog.renewDeadline().toSeconds());
                  Runtime.getRuntime().halt(1);
                }
              }
            },
            "lease-renewal-watchdog");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Refuses at the start what would make the elector fail on every attempt for ever (a WARN with a
   * stack trace every 2 s, {@code /readyz} saying only "not leading"): a dry-run create of the
   * Lease ({@code dryRun=All}, nothing written) that the API server answers 404 (the namespace does
   * not exist) or 403 (RBAC, or the namespace is being deleted), unless the Lease exists and can be
   * read (RBAC that grants get and update on a Lease created beforehand, not create), or 401 (the
   * credentials are refused: the elector would never lead, and no other request would succeed
   * either). 409 (the Lease exists) is the usual answer; anything else (5xx, no answer) is left to
   * the elector's retries.
   *
   * @throws IllegalStateException for a 404 or 403, {@code --leader-election-namespace=NS: cannot
   *     write Lease NAME there: <the API server's message>} (e.g. {@code namespaces "NS" not
   *     found}); for a 401, the Lease and {@link RefusedRequest}'s phrase; fabric8's exception is
   *     attached as suppressed, not as the cause, so that its message (the URL and the whole Status
   *     object) stays out of the one-line start failure
   */
  public static void checkLeaseCanBeWritten(
      KubernetesClient client, String namespace, String leaseName) {
    var probe =
        new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(leaseName)
            .endMetadata()
            .build();
    try {
      client.leases().inNamespace(namespace).resource(probe).dryRun().create();
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() == 401) {
        IllegalStateException failure =
            new IllegalStateException(
                "cannot write leader-election Lease "
                    + namespace
                    + "/"
                    + leaseName
                    + ": "
                    + RefusedRequest.describe(e).orElseThrow());
        failure.addSuppressed(e); // the answer says it all; the stack trace (debug) keeps fabric8's
        throw failure;
      }
      if (e.getCode() == 403 && leaseExists(client, namespace, leaseName)) {
        return; // RBAC that grants get/update on a Lease created beforehand, but not create
      }
      if (e.getCode() == 404 || e.getCode() == 403) {
        // the API server's message alone (namespaces "x" not found): fabric8's own, "Failure
        // executing: POST at: <url> ... Received status: Status(...)", would follow it on the
        // start failure's line were it the cause
        String message =
            e.getStatus() != null
                    && e.getStatus().getMessage() != null
                    && !e.getStatus().getMessage().isBlank()
                ? e.getStatus().getMessage()
                : "answered " + e.getCode();
        IllegalStateException failure =
            new IllegalStateException(
                "--leader-election-namespace="
                    + namespace
                    + ": cannot write Lease "
                    + leaseName
                    + " there: "
                    + message);
        failure.addSuppressed(e); // the stack trace (debug) keeps fabric8's
        throw failure;
      }
    }
  }

  private static boolean leaseExists(KubernetesClient client, String namespace, String leaseName) {
    try {
      return client.leases().inNamespace(namespace).withName(leaseName).get() != null;
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      return false;
    }
  }

  /**
   * Blocks this thread's caller only until the elector runs; {@code whileLeading} is called on a
   * thread of its own once this process leads, so the Lease is renewed while it runs (it starts the
   * loops and waits for the caches, seconds at fleet scale).
   *
   * @param leaseName the Lease's name
   * @param identity this candidate's name in the Lease ({@code holderIdentity}), e.g. the pod name
   * @param readiness told when this process leads and which holder it saw
   * @param stopping while true, the end of leadership is this process releasing the Lease on its
   *     way out (logged, no exit 1)
   * @param gate installed in the clients the loops write with: follows this elector's renewals from
   *     now on, so that nothing is written unless this process leads within the renew deadline
   * @return the running elector; cancel it to step down and release the Lease
   */
  public static CompletableFuture<?> start(
      KubernetesClient client,
      String namespace,
      String leaseName,
      String identity,
      Readiness readiness,
      Runnable whileLeading,
      java.util.function.BooleanSupplier stopping,
      LeadershipGate gate) {
    RenewalWatchdog watchdog = new RenewalWatchdog(RENEW_DEADLINE, System::nanoTime);
    gate.follow(watchdog);
    startWatching(watchdog, identity, namespace + "/" + leaseName, stopping);
    return client
        .leaderElector()
        .withConfig(
            new LeaderElectionConfigBuilder()
                .withName(leaseName)
                .withLock(watchdog.wrap(new LeaseLock(namespace, leaseName, identity)))
                .withLeaseDuration(LEASE_DURATION)
                .withRenewDeadline(RENEW_DEADLINE)
                .withRetryPeriod(Duration.ofSeconds(2))
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(
                    new LeaderCallbacks(
                        () -> {
                          LOG.info(
                              "leader election: {} leads ({}/{})", identity, namespace, leaseName);
                          watchdog.leading();
                          readiness.leading();
                          // on a thread of its own (controller-runtime: a goroutine): fabric8
                          // calls this inside its renewal, which waited for the caches to load
                          Thread start = new Thread(whileLeading, "leader-start");
                          start.setDaemon(true);
                          start.start();
                        },
                        () -> {
                          if (stopping.getAsBoolean()) {
                            // fabric8 calls this also when the release failed
                            if (watchdog.released()) {
                              LOG.info("leader election: {} released the lease", identity);
                            } else {
                              LOG.warn(
                                  "leader election: {} stepped down without releasing the lease"
                                      + " (the API server did not take it); it expires in {} s",
                                  identity,
                                  LEASE_DURATION.toSeconds());
                            }
                            return;
                          }
                          LOG.error("leader election: {} lost the lease; exiting", identity);
                          Runtime.getRuntime().halt(1);
                        },
                        leader -> {
                          readiness.observedLeader(leader);
                          if (leader == null) {
                            // fabric8 reports a released Lease (no holderIdentity) as null
                            LOG.info("leader election: no replica holds the Lease (released)");
                          } else {
                            LOG.info("leader election: current leader is {}", leader);
                          }
                        }))
                .build())
        .build()
        .start();
  }
}

package dev.ironcore.maintenance.controller;

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
 * lease ends the process (exit code 1), so a restarted pod starts from a fresh cache, as
 * controller-runtime does. On a clean stop (SIGTERM) the process releases the Lease itself, so a
 * successor need not wait for it to expire.
 */
public final class LeaderElection {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Default name of the leader-election Lease ({@code --leader-election-id}). */
  public static final String LEASE_NAME = "ironcore-maintenance-controller";

  private LeaderElection() {}

  /**
   * Refuses at the start what would make the elector fail on every attempt for ever (a WARN with a
   * stack trace every 2 s, {@code /readyz} saying only "not leading"): a dry-run create of the
   * Lease ({@code dryRun=All}, nothing written) that the API server answers 404 (the namespace does
   * not exist) or 403 (RBAC, or the namespace is being deleted), unless the Lease exists and can be
   * read (RBAC that grants get and update on a Lease created beforehand, not create). 409 (the
   * Lease exists) is the usual answer; anything else (5xx, no answer) is left to the elector's
   * retries.
   *
   * @throws IllegalStateException naming the flag, the Lease and the API server's message
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
      if (e.getCode() == 403 && leaseExists(client, namespace, leaseName)) {
        return; // RBAC that grants get/update on a Lease created beforehand, but not create
      }
      if (e.getCode() == 404 || e.getCode() == 403) {
        String message =
            e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : e.getMessage();
        throw new IllegalStateException(
            "--leader-election-namespace="
                + namespace
                + ": cannot write Lease "
                + leaseName
                + " there: "
                + message,
            e);
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
   * Blocks this thread's caller only until the elector runs; {@code whileLeading} is called on the
   * elector's thread once this process leads.
   *
   * @param leaseName the Lease's name
   * @param identity this candidate's name in the Lease ({@code holderIdentity}), e.g. the pod name
   * @param readiness told when this process leads and which holder it saw
   * @return the running elector; cancel it to step down and release the Lease
   */
  public static CompletableFuture<?> start(
      KubernetesClient client,
      String namespace,
      String leaseName,
      String identity,
      Readiness readiness,
      Runnable whileLeading) {
    return start(client, namespace, leaseName, identity, readiness, whileLeading, () -> false);
  }

  /**
   * As {@link #start(KubernetesClient, String, String, String, Readiness, Runnable)}; while {@code
   * stopping} is true, the end of leadership is this process releasing the Lease on its way out
   * (logged, no exit 1).
   */
  public static CompletableFuture<?> start(
      KubernetesClient client,
      String namespace,
      String leaseName,
      String identity,
      Readiness readiness,
      Runnable whileLeading,
      java.util.function.BooleanSupplier stopping) {
    return client
        .leaderElector()
        .withConfig(
            new LeaderElectionConfigBuilder()
                .withName(leaseName)
                .withLock(new LeaseLock(namespace, leaseName, identity))
                .withLeaseDuration(Duration.ofSeconds(15))
                .withRenewDeadline(Duration.ofSeconds(10))
                .withRetryPeriod(Duration.ofSeconds(2))
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(
                    new LeaderCallbacks(
                        () -> {
                          LOG.info(
                              "leader election: {} leads ({}/{})", identity, namespace, leaseName);
                          readiness.leading();
                          whileLeading.run();
                        },
                        () -> {
                          if (stopping.getAsBoolean()) {
                            LOG.info("leader election: {} released the lease", identity);
                            return;
                          }
                          LOG.error("leader election: {} lost the lease; exiting", identity);
                          Runtime.getRuntime().halt(1);
                        },
                        leader -> {
                          readiness.observedLeader(leader);
                          LOG.info("leader election: current leader is {}", leader);
                        }))
                .build())
        .build()
        .start();
  }
}

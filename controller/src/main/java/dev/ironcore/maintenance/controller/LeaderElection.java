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
 * controller-runtime does.
 */
public final class LeaderElection {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Default name of the leader-election Lease ({@code --leader-election-id}). */
  public static final String LEASE_NAME = "ironcore-maintenance-controller";

  private LeaderElection() {}

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

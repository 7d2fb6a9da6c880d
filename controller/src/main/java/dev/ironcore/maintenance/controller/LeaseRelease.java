package dev.ironcore.maintenance.controller;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Steps down once: cancels the leader elector (fabric8 then releases the Lease when this process
 * leads, controller-runtime's ReleaseOnCancel) on a thread of its own, and lets every caller wait
 * for that one release. Two callers (a failed start and a SIGTERM at the same moment) each
 * cancelling the elector left the second one with nothing to wait for: its process exited while the
 * first one's release was still on its way, and the Lease stayed held until it expired.
 */
final class LeaseRelease {
  private final CompletableFuture<?> elector;
  private Thread release;

  /**
   * @param elector the running elector, as {@link LeaderElection#start} returns it
   */
  LeaseRelease(CompletableFuture<?> elector) {
    this.elector = elector;
  }

  /**
   * Starts the release unless a caller did, then waits for it.
   *
   * @param wait how long to wait at most (an API server that does not answer would hold the caller
   *     for fabric8's retries, about 40 s)
   * @return true once the elector was cancelled (the Lease released, or its release refused and
   *     logged by {@link LeaderElection}); false if it still runs after {@code wait}
   */
  boolean releaseAndWait(Duration wait) throws InterruptedException {
    Thread t;
    synchronized (this) {
      if (release == null) {
        release = new Thread(() -> elector.cancel(true), "lease-release");
        release.setDaemon(true);
        release.start();
      }
      t = release;
    }
    t.join(wait.toMillis());
    return !t.isAlive();
  }
}

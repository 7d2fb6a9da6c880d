package dev.ironcore.maintenance.controller;

/**
 * What {@code /readyz} answers, independent of leadership as controller-runtime managers do: ready
 * once the caches synced and the loops run, or, with leader election, while this process is a
 * standby that has seen the Lease held by another candidate. So a standby replica passes its
 * readiness probe and a Deployment rollout (maxUnavailable 0) can proceed to stop the old leader.
 * Not ready: before the first look at the Lease, and between winning the Lease and the caches being
 * synced.
 */
public final class Readiness {
  private final String identity;
  private volatile boolean synced;
  private volatile boolean leading;
  private volatile String observedLeader;

  /**
   * @param identity this candidate's identity in the Lease, or null without leader election
   */
  public Readiness(String identity) {
    this.identity = identity;
  }

  /** The caches synced and the loops run. */
  public void synced() {
    synced = true;
  }

  /** This process won the Lease. */
  public void leading() {
    leading = true;
  }

  /** The Lease is held by {@code leader} (may be this process). */
  public void observedLeader(String leader) {
    observedLeader = leader;
  }

  /** True when the readiness probe should pass. */
  public boolean ready() {
    return synced || standby();
  }

  private boolean standby() {
    String leader = observedLeader;
    return identity != null && !leading && leader != null && !leader.equals(identity);
  }

  /** One line for the probe's body. */
  public String describe() {
    if (synced) {
      return "ok";
    }
    if (standby()) {
      return "ok: standby, the Lease is held by " + observedLeader;
    }
    return leading ? "leading, caches not synced yet" : "caches not synced yet";
  }
}

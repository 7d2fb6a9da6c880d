package dev.ironcore.maintenance.controller.health;

/**
 * What the health loop compares between passes for one pool: the Lease's {@code renewTime} as
 * written (never compared with the local clock) and the Ready condition's {@code status} and {@code
 * observedGeneration}. Any field may be null (no Lease, no condition).
 */
public record PoolHealthObservation(
    String leaseRenewTime, String readyStatus, Long readyObservedGeneration) {

  /**
   * True when the Lease was renewed since {@code previous} (IronCore {@code
   * leaseRenewTimeChanged}).
   */
  public boolean leaseRenewTimeChanged(PoolHealthObservation previous) {
    return !java.util.Objects.equals(leaseRenewTime, previous.leaseRenewTime);
  }

  /**
   * True when the Ready condition moved since {@code previous} (IronCore {@code
   * readyConditionChanged}).
   */
  public boolean readyConditionChanged(PoolHealthObservation previous) {
    return !java.util.Objects.equals(readyStatus, previous.readyStatus)
        || !java.util.Objects.equals(readyObservedGeneration, previous.readyObservedGeneration);
  }
}

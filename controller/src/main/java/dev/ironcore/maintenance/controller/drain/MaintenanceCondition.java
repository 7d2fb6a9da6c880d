package dev.ironcore.maintenance.controller.drain;

/**
 * The {@code Maintenance} condition the drain wants on a MachinePool (IronCore's poollet owns
 * {@code Ready}; this one is ours). Written with IronCore's condition semantics ({@code
 * lastUpdateTime} on every write, {@code lastTransitionTime} when the status changes), and only
 * when status, reason or message differ from what the pool shows.
 *
 * @param status {@code False} while queued, draining or stuck, and once cancelled; {@code True}
 *     once drained
 * @param reason one of the {@code *_REASON} constants
 * @param message for operators, e.g. {@code waiting for 2 Machines: team-a/vm-1, team-a/vm-7}
 */
public record MaintenanceCondition(String status, String reason, String message) {
  /** Condition type. */
  public static final String TYPE = "Maintenance";

  /** Waiting for a free slot of {@code --max-concurrent-drains}; the pool is not tainted yet. */
  public static final String QUEUED_REASON = "DrainQueued";

  /** Tainted; bound Machines that do not tolerate the maintenance taint still block. */
  public static final String DRAINING_REASON = "Draining";

  /**
   * The drain holds the pre-drain hook without tainting: the pool is also the {@code
   * status.nodeRef} of a CAPI Machine that is not being deleted.
   */
  public static final String HELD_REASON = "DrainHeld";

  /** Draining for longer than {@code --drain-timeout}; the hook is kept. */
  public static final String STUCK_REASON = "DrainStuck";

  /** Every bound Machine is gone or tolerates the taint; the pre-drain hook was released. */
  public static final String DRAINED_REASON = "Drained";

  /**
   * The drain ended before it finished: no deleting CAPI Machine selected by {@code
   * --capi-machine-selector} (with our finalizer) references the pool any more. Maintenance taints
   * a drain already added are kept (see {@link DrainCancellation}).
   */
  public static final String CANCELLED_REASON = "DrainCancelled";

  static MaintenanceCondition cancelled(String message) {
    return new MaintenanceCondition("False", CANCELLED_REASON, message);
  }

  static MaintenanceCondition held(String message) {
    return new MaintenanceCondition("False", HELD_REASON, message);
  }

  static MaintenanceCondition queued(String message) {
    return new MaintenanceCondition("False", QUEUED_REASON, message);
  }

  static MaintenanceCondition draining(String message) {
    return new MaintenanceCondition("False", DRAINING_REASON, message);
  }

  static MaintenanceCondition stuck(String message) {
    return new MaintenanceCondition("False", STUCK_REASON, message);
  }

  static MaintenanceCondition drained(String message) {
    return new MaintenanceCondition("True", DRAINED_REASON, message);
  }
}

package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Whether a pool's drain ended without running to completion, as a pure function of the pool and
 * the CAPI Machines observed: the pool's {@code Maintenance} condition claims a drain ({@code
 * DrainQueued}, {@code DrainHeld}, {@code Draining} or {@code DrainStuck}) but no deleting CAPI
 * Machine that {@code --capi-machine-selector} selects and that still carries our finalizer has the
 * pool as its {@code status.nodeRef.name} (the Machine was deselected, or deleted by someone who
 * removed our finalizer). Derived from the cluster only, so a restart finds such pools too.
 *
 * <p>The answer sets {@code Maintenance=False/DrainCancelled} and records a {@code DrainCancelled}
 * event on the pool. Maintenance taints already on the pool are kept: Machines that did not
 * tolerate them may already be evicted, and removing the taints would only let new Machines land on
 * a node that was on its way out; the message and a Warning tell the operator to remove them
 * ({@code kubectl edit machinepools.compute.ironcore.dev}) if the node stays; once they are gone,
 * the message says so. A pool that was only queued carries no taint of ours, so its event is
 * Normal.
 */
public final class DrainCancellation {
  /** Reasons that claim a drain is queued or running. */
  static final Set<String> ACTIVE_REASONS =
      Set.of(
          MaintenanceCondition.QUEUED_REASON,
          MaintenanceCondition.HELD_REASON,
          MaintenanceCondition.DRAINING_REASON,
          MaintenanceCondition.STUCK_REASON);

  private DrainCancellation() {}

  /**
   * What to write when the drain of {@code pool} was cancelled.
   *
   * @param condition the pool's new {@code Maintenance} condition ({@code DrainCancelled})
   * @param event the event to record on the pool, on the transition into {@code DrainCancelled}
   */
  public record Cancel(MaintenanceCondition condition, DrainEvent event) {}

  /**
   * @param pool the MachinePool (null: nothing to say); one being deleted (held by another
   *     finalizer) too: its condition must not claim a drain nothing runs (fresh eyes: it said
   *     {@code Draining} for good after the CAPI Machine was gone)
   * @param capiMachines CAPI Machines observed; only those whose {@code status.nodeRef.name} is the
   *     pool matter (others are ignored)
   * @param selector {@code --capi-machine-selector} on a Machine's labels
   * @return the cancellation to write (or, for a cancelled drain whose maintenance taints have been
   *     removed since, its message saying so), or null when the pool's condition does not claim a
   *     drain or a drain of it is still under way
   */
  public static Cancel decide(
      MachinePool pool,
      Collection<CapiMachine> capiMachines,
      Predicate<Map<String, String>> selector) {
    if (pool == null) {
      return null;
    }
    String name = pool.getMetadata().getName();
    Condition c =
        Conditions.find(
            pool.getStatus() == null ? null : pool.getStatus().getConditions(),
            MaintenanceCondition.TYPE);
    if (c != null && MaintenanceCondition.CANCELLED_REASON.equals(c.getReason())) {
      return taintsRemovedSince(pool, c.getMessage());
    }
    if (c == null || !ACTIVE_REASONS.contains(c.getReason())) {
      return null;
    }
    List<CapiMachine> onNode =
        capiMachines.stream().filter(m -> name.equals(m.nodeName())).sorted(BY_KEY).toList();
    // whether a drain of the pool exists; the time only decides which slot it holds
    if (!DrainFleet.of(onNode, n -> pool, selector, java.time.Instant.EPOCH).isEmpty()) {
      return null;
    }
    boolean tainted = DrainDecision.carriesMaintenanceTaint(pool);
    String message =
        "drain of pool "
            + name
            + " cancelled while "
            + c.getReason()
            + ": "
            + why(onNode, selector)
            + (tainted ? TAINTS_STAY + " in service" : "; the pool was not tainted");
    DrainEvent event =
        tainted
            ? DrainEvent.warning(
                DrainEvent.Subject.POOL,
                DrainEvent.CANCELLED,
                message,
                DrainEvent.When.REASON_CHANGED)
            : DrainEvent.normal(
                DrainEvent.Subject.POOL,
                DrainEvent.CANCELLED,
                message,
                DrainEvent.When.REASON_CHANGED);
    return new Cancel(MaintenanceCondition.cancelled(message), event);
  }

  /**
   * The end of a cancelled drain's message while the pool keeps our taints, but for its last words
   * {@code " in service"} (messages written before they were added end here, and are found by it
   * too).
   */
  static final String TAINTS_STAY =
      "; the "
          + Names.MAINTENANCE_TAINT_KEY
          + " taints stay (Machines may already be evicted): remove them if the node stays";

  /**
   * A cancelled drain whose message asks to remove the maintenance taints, on a pool that no longer
   * carries any: the message says they were removed (fresh eyes: it kept asking for what the
   * operator had done, for good); no event (the reason stays {@code DrainCancelled}). Null
   * otherwise.
   */
  private static Cancel taintsRemovedSince(MachinePool pool, String message) {
    int i = message == null ? -1 : message.indexOf(TAINTS_STAY);
    if (i < 0 || DrainDecision.carriesMaintenanceTaint(pool)) {
      return null;
    }
    String removed =
        message.substring(0, i)
            + "; the "
            + Names.MAINTENANCE_TAINT_KEY
            + " taints were removed since: nothing left to do";
    return new Cancel(
        MaintenanceCondition.cancelled(removed),
        DrainEvent.normal(
            DrainEvent.Subject.POOL,
            DrainEvent.CANCELLED,
            removed,
            DrainEvent.When.REASON_CHANGED));
  }

  private static final java.util.Comparator<CapiMachine> BY_KEY =
      java.util.Comparator.comparing(DrainDecision::key);

  /** Why no CAPI Machine drains the pool any more, naming the first such Machine. */
  private static String why(List<CapiMachine> onNode, Predicate<Map<String, String>> selector) {
    // only deleting ones: a live CAPI Machine on the node (one a held drain shared the pool with)
    // never drained it
    onNode = onNode.stream().filter(DrainDecision::isDeleting).toList();
    for (CapiMachine m : onNode) {
      Map<String, String> labels = m.getMetadata().getLabels();
      if (!selector.test(labels == null ? Map.of() : labels)) {
        return "CAPI Machine "
            + DrainDecision.key(m)
            + " is no longer selected by --capi-machine-selector";
      }
    }
    for (CapiMachine m : onNode) {
      if (!DrainDecision.hasFinalizer(m, Names.CLEANUP_FINALIZER)) {
        return "finalizer "
            + Names.CLEANUP_FINALIZER
            + " was removed from CAPI Machine "
            + DrainDecision.key(m);
      }
    }
    // also when this controller released a drain it no longer selected and the Machine was gone
    // before this check (fresh eyes: read as blaming someone else)
    return "no deleting CAPI Machine references it any more (deleted: after its drain was released,"
        + " e.g. as no longer selected by --capi-machine-selector, or with its finalizer removed by"
        + " someone else; or its status.nodeRef changed)";
  }
}

package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/** Builds the drain budget's view of the cluster ({@link DrainSlot}s) from observed objects. */
public final class DrainFleet {
  private DrainFleet() {}

  /**
   * @param capiMachines all CAPI Machines observed
   * @param pools looks a pool up by name (null when absent)
   * @param selector {@code --capi-machine-selector} on the Machine's labels
   * @param now the current time (a maintenance taint's {@code timeAdded} in the future is not a
   *     drain's: {@link DrainDecision#taintedBeforeDrain})
   * @return one slot per deleting, selected CAPI Machine with our finalizer and a nodeRef
   */
  public static List<DrainSlot> of(
      Collection<CapiMachine> capiMachines,
      Function<String, MachinePool> pools,
      Predicate<Map<String, String>> selector,
      Instant now) {
    java.util.Set<String> liveNodes =
        capiMachines.stream()
            .filter(m -> !DrainDecision.isDeleting(m))
            .map(CapiMachine::nodeName)
            .filter(Objects::nonNull)
            .collect(java.util.stream.Collectors.toSet());
    return capiMachines.stream()
        .map(m -> slot(m, pools, selector, liveNodes, now))
        .filter(Objects::nonNull)
        .toList();
  }

  /**
   * @param liveNodes the nodeRefs of CAPI Machines that are not being deleted: a drain of such a
   *     pool is held ({@link DrainStep.SharedPool}) and neither holds nor waits for a slot, tainted
   *     or not, so it cannot keep the queue behind it waiting
   */
  private static DrainSlot slot(
      CapiMachine m,
      Function<String, MachinePool> pools,
      Predicate<Map<String, String>> selector,
      java.util.Set<String> liveNodes,
      Instant now) {
    Instant deletedAt = DrainDecision.deletedAt(m);
    Map<String, String> labels = m.getMetadata().getLabels();
    String node = m.nodeName();
    if (deletedAt == null
        || node == null
        || !DrainDecision.hasFinalizer(m, Names.CLEANUP_FINALIZER)
        || !selector.test(labels == null ? Map.of() : labels)) {
      return null;
    }
    MachinePool pool = pools.apply(node);
    boolean live = pool != null && !DrainDecision.isDeleting(pool);
    // a drain adds both maintenance taints in one write; the NoExecute one evicts, so it is the
    // one that takes a slot (a pool cordoned by hand with :NoSchedule alone still waits)
    boolean tainted =
        live
            && pool.getSpec() != null
            && pool.getSpec().taintsOrEmpty().stream()
                .anyMatch(
                    t ->
                        t != null
                            && Names.MAINTENANCE_TAINT_KEY.equals(t.getKey())
                            && TaintEffect.NO_EXECUTE.equals(t.getEffect()));
    // evicted by a NoExecute taint older than the deletion whatever the drain does: no slot, no
    // wait
    boolean taintedBefore = live && DrainDecision.taintedBeforeDrain(pool, deletedAt, now);
    boolean hook = DrainDecision.annotation(m, Names.PRE_DRAIN_HOOK_ANNOTATION) != null;
    boolean shared = live && hook && liveNodes.contains(node);
    var maintenance =
        live && pool.getStatus() != null
            ? dev.ironcore.maintenance.api.compute.Conditions.find(
                pool.getStatus().getConditions(), MaintenanceCondition.TYPE)
            : null;
    return new DrainSlot(
        DrainDecision.key(m),
        deletedAt,
        node,
        tainted && !taintedBefore && !shared,
        live && !tainted && hook && !shared,
        shared,
        hook,
        maintenance != null && MaintenanceCondition.STUCK_REASON.equals(maintenance.getReason()),
        otherHooks(m));
  }

  /**
   * CAPI's lifecycle hook annotations ({@code pre-drain}, {@code pre-terminate}) other than ours.
   */
  private static List<String> otherHooks(CapiMachine m) {
    Map<String, String> annotations = m.getMetadata().getAnnotations();
    if (annotations == null) {
      return List.of();
    }
    return annotations.keySet().stream()
        .filter(
            k ->
                (k.startsWith(Names.PRE_DRAIN_HOOK_PREFIX)
                        || k.startsWith(Names.PRE_TERMINATE_HOOK_PREFIX))
                    && !k.equals(Names.PRE_DRAIN_HOOK_ANNOTATION))
        .sorted()
        .toList();
  }
}

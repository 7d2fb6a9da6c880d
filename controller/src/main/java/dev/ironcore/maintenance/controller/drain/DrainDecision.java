package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.compute.Tolerations;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The drain of a CAPI Machine's MachinePool as a pure function (domain reference §5, after {@code
 * ironcore-dev/pool-lifecycle-controller}): given what was observed, the single next step.
 */
public final class DrainDecision {
  /**
   * The taints the drain puts on a pool: {@code maintenance.ironcore.dev} with NoSchedule and
   * NoExecute.
   */
  public static final List<Taint> MAINTENANCE_TAINTS =
      List.of(
          new Taint(Names.MAINTENANCE_TAINT_KEY, null, TaintEffect.NO_SCHEDULE),
          new Taint(Names.MAINTENANCE_TAINT_KEY, null, TaintEffect.NO_EXECUTE));

  /** {@link DrainStep.Release} reason: the Machine has no {@code status.nodeRef}. */
  public static final String NO_NODE = "no status.nodeRef, so no pool to drain";

  /** {@link DrainStep.Release} reason: the selector no longer selects the Machine. */
  public static final String NOT_SELECTED = "--capi-machine-selector no longer selects it";

  private DrainDecision() {}

  /** The next step for {@code in}; never null. */
  public static DrainStep next(DrainInput in) {
    CapiMachine capi = in.capiMachine();
    boolean hasFinalizer = hasFinalizer(capi, Names.CLEANUP_FINALIZER);
    boolean hasHook =
        Names.PRE_DRAIN_HOOK_VALUE.equals(annotation(capi, Names.PRE_DRAIN_HOOK_ANNOTATION));
    if (!in.selected()) {
      return hasFinalizer || hasHook
          ? new DrainStep.Release(NOT_SELECTED)
          : new DrainStep.Nothing();
    }
    if (!isDeleting(capi)) {
      return hasFinalizer && hasHook
          ? new DrainStep.Nothing()
          : new DrainStep.EnsureFinalizerAndHook(!hasFinalizer, !hasHook);
    }
    if (!hasFinalizer) {
      return new DrainStep.Nothing();
    }
    String node = capi.nodeName();
    if (node == null) {
      return new DrainStep.Release(NO_NODE);
    }
    MachinePool pool = in.pool();
    if (hasHook) {
      if (pool == null) {
        return new DrainStep.RemoveHook(node, true);
      }
      List<Taint> missing = missingMaintenanceTaints(pool);
      if (!missing.isEmpty()) {
        return new DrainStep.AddTaints(node, missing);
      }
      List<String> blocking = blockingMachines(pool, in.boundMachines());
      if (!blocking.isEmpty()) {
        return new DrainStep.Hold(node, blocking);
      }
      return new DrainStep.RemoveHook(node, false);
    }
    if (hasFinalizer(capi, Names.CAPI_MACHINE_FINALIZER)) {
      return new DrainStep.WaitForCapi(node);
    }
    if (pool != null && !isDeleting(pool)) {
      return new DrainStep.DeletePool(node);
    }
    return new DrainStep.RemoveFinalizer(node);
  }

  /**
   * The maintenance taints {@code pool} lacks, matched by key and effect; other taints are ignored.
   */
  public static List<Taint> missingMaintenanceTaints(MachinePool pool) {
    List<Taint> present = pool.getSpec() == null ? List.of() : pool.getSpec().taintsOrEmpty();
    List<Taint> missing = new ArrayList<>();
    for (Taint wanted : MAINTENANCE_TAINTS) {
      if (present.stream().noneMatch(t -> t != null && t.sameKeyAndEffect(wanted))) {
        missing.add(wanted);
      }
    }
    return missing;
  }

  /**
   * Bound Machines ({@code namespace/name}, sorted) that do not tolerate the pool's {@code
   * maintenance.ironcore.dev} NoExecute taint for good; Machines still shutting down count. A
   * Machine that tolerates it only with {@code tolerationSeconds} blocks until the eviction loop
   * has evicted it and it is gone (domain reference §5, drain step 4). The taint is the pool's own
   * (matched by key and effect, so a value someone gave it counts, as it does for eviction), or
   * {@code {maintenance.ironcore.dev, NoExecute}} when the pool has none.
   */
  public static List<String> blockingMachines(MachinePool pool, List<Machine> bound) {
    List<Taint> present =
        pool == null || pool.getSpec() == null ? List.of() : pool.getSpec().taintsOrEmpty();
    Taint wanted = MAINTENANCE_TAINTS.get(1);
    List<Taint> maintenance =
        present.stream().filter(t -> t != null && t.sameKeyAndEffect(wanted)).toList();
    List<Taint> probes = maintenance.isEmpty() ? List.of(wanted) : maintenance;
    List<String> blocking = new ArrayList<>();
    for (Machine m : bound) {
      var tolerations = m.getSpec() == null ? null : m.getSpec().getTolerations();
      if (probes.stream().anyMatch(t -> !Tolerations.toleratedForever(t, tolerations))) {
        blocking.add(m.getMetadata().getNamespace() + "/" + m.getMetadata().getName());
      }
    }
    blocking.sort(null);
    return blocking;
  }

  static boolean isDeleting(HasMetadata o) {
    return o.getMetadata() != null && o.getMetadata().getDeletionTimestamp() != null;
  }

  static boolean hasFinalizer(HasMetadata o, String finalizer) {
    return o.getMetadata() != null
        && o.getMetadata().getFinalizers() != null
        && o.getMetadata().getFinalizers().contains(finalizer);
  }

  static String annotation(HasMetadata o, String key) {
    Map<String, String> a = o.getMetadata() == null ? null : o.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }
}

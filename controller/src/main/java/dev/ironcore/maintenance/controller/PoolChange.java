package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import java.util.List;

/**
 * Which pool changes concern the Machines bound to the pool. The eviction and orphan loops, keyed
 * by Machine, read of the pool only whether it exists and its {@code spec.taints}; a pool's status
 * changes far more often (the poollet's reports, {@code Ready=Unknown}) and must not re-queue every
 * Machine on it (1,000 pools going Unknown together would queue 10 reconciles per bound Machine in
 * each of two loops). Periodic resyncs re-queue every Machine anyway through its own events.
 */
public final class PoolChange {
  private PoolChange() {}

  /**
   * @param old the pool before the change; null when it was added or deleted (the informer's
   *     handlers pass the last known state as {@code current} on delete)
   * @param current the pool after the change (or as it was when deleted)
   * @return true when the bound Machines' loops must look again: the pool appeared or disappeared,
   *     or its taints differ in key, value, effect, timeAdded or order
   */
  public static boolean concernsBoundMachines(MachinePool old, MachinePool current) {
    return old == null || !Taint.sameTaints(taints(old), taints(current));
  }

  private static List<Taint> taints(MachinePool pool) {
    return pool.getSpec() == null ? null : pool.getSpec().getTaints();
  }
}

package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.compute.Tolerations;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which warnings a MachinePool change deserves (pure): for every {@code NoExecute} taint the change
 * adds (key, value and effect not on the old pool), how many bound Machines not yet deleting do not
 * tolerate it, as IronCore's eviction will then delete them (IEP-21).
 */
public final class EvictionWarnings {
  private EvictionWarnings() {}

  /**
   * @param old the pool before (null on CREATE)
   * @param updated the pool after
   * @param bound the Machines bound to the pool
   * @return e.g. {@code 2 bound Machines do not tolerate maintenance.ironcore.dev=x:NoExecute and
   *     will be evicted}; one per added taint that would evict at least one Machine
   */
  public static List<String> of(MachinePool old, MachinePool updated, List<Machine> bound) {
    List<Taint> before = taints(old);
    List<String> warnings = new ArrayList<>();
    for (Taint t : taints(updated)) {
      if (t == null
          || !TaintEffect.NO_EXECUTE.equals(t.getEffect())
          || before.stream().anyMatch(b -> b != null && same(b, t))) {
        continue;
      }
      long evicted =
          bound.stream()
              .filter(
                  m -> m.getMetadata() == null || m.getMetadata().getDeletionTimestamp() == null)
              .filter(
                  m ->
                      !Tolerations.tolerated(
                          t, m.getSpec() == null ? null : m.getSpec().getTolerations()))
              .count();
      if (evicted > 0) {
        warnings.add(
            (evicted == 1
                    ? "1 bound Machine does not tolerate "
                    : evicted + " bound Machines do not tolerate ")
                + describe(t)
                + " and will be evicted");
      }
    }
    return warnings;
  }

  /** {@code key=value:Effect}, or {@code key:Effect} without a value (as kubectl writes taints). */
  static String describe(Taint t) {
    String value = t.getValue() == null || t.getValue().isEmpty() ? "" : "=" + t.getValue();
    return t.getKey() + value + ":" + t.getEffect();
  }

  private static boolean same(Taint a, Taint b) {
    return Objects.equals(a.getKey(), b.getKey())
        && Objects.equals(emptyIfNull(a.getValue()), emptyIfNull(b.getValue()))
        && Objects.equals(a.getEffect(), b.getEffect());
  }

  private static String emptyIfNull(String s) {
    return s == null ? "" : s;
  }

  private static List<Taint> taints(MachinePool p) {
    return p == null || p.getSpec() == null ? List.of() : p.getSpec().taintsOrEmpty();
  }
}

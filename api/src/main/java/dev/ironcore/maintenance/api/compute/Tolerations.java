package dev.ironcore.maintenance.api.compute;

import java.util.List;
import java.util.stream.Collectors;

/** Taint/toleration rules over lists (IronCore IEP-21; Kubernetes taint semantics). */
public final class Tolerations {
  private Tolerations() {}

  /** True when at least one of {@code tolerations} (null = none) matches {@code taint}. */
  public static boolean tolerated(Taint taint, List<Toleration> tolerations) {
    return tolerations != null
        && tolerations.stream().anyMatch(t -> t != null && t.tolerates(taint));
  }

  /**
   * True when at least one of {@code tolerations} (null = none) matches {@code taint} and has no
   * {@code tolerationSeconds}: the taint is tolerated for good. A toleration with {@code
   * tolerationSeconds} (our v1alpha2) only tolerates a NoExecute taint for a while.
   */
  public static boolean toleratedForever(Taint taint, List<Toleration> tolerations) {
    return tolerations != null
        && tolerations.stream()
            .anyMatch(t -> t != null && t.tolerates(taint) && t.getTolerationSeconds() == null);
  }

  /**
   * The {@code NoExecute} taints in {@code taints} (null = none) not matched by any of {@code
   * tolerations}, in their original order; empty means the Machine may stay on the pool.
   */
  public static List<Taint> untoleratedNoExecute(List<Taint> taints, List<Toleration> tolerations) {
    if (taints == null) {
      return List.of();
    }
    return taints.stream()
        .filter(t -> t != null && TaintEffect.NO_EXECUTE.equals(t.getEffect()))
        .filter(t -> !tolerated(t, tolerations))
        .collect(Collectors.toList());
  }
}

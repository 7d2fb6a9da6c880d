package dev.ironcore.maintenance.api.compute;

import java.util.List;
import java.util.stream.Collectors;

/** Taint/toleration rules over lists (IronCore IEP-21; Kubernetes taint semantics). */
public final class Tolerations {
  /** What {@link #secondsTolerated} returns when the first matching toleration has no seconds. */
  public static final long FOREVER = Long.MIN_VALUE;

  private Tolerations() {}

  /**
   * How long {@code tolerations} (null = none) let a Machine stay on a pool once the {@code
   * NoExecute} {@code taint} is there, as Kubernetes' taint manager decides for pods: the first
   * matching toleration in list order decides ({@code GetMatchingTolerations} takes the first match
   * per taint, {@code getMinTolerationTime} its seconds), so {@code [{k, 20 s}, {k}]} is evicted
   * after 20 s and {@code [{k}, {k, 20 s}]} never (fresh eyes: any match without seconds used to
   * win, and the shortest of several matching seconds). 0 or less: evicted at once, counted as 0 as
   * Kubernetes does, so that no value a user can write reads as {@link #FOREVER} (int64's least
   * value is a legal {@code tolerationSeconds}).
   *
   * @return null when no toleration matches; {@link #FOREVER} when the first matching one has no
   *     {@code tolerationSeconds}; else its {@code tolerationSeconds}, at least 0
   */
  public static Long secondsTolerated(Taint taint, List<Toleration> tolerations) {
    for (Toleration t : tolerations == null ? List.<Toleration>of() : tolerations) {
      if (t != null && t.tolerates(taint)) {
        return t.getTolerationSeconds() == null ? FOREVER : Math.max(0, t.getTolerationSeconds());
      }
    }
    return null;
  }

  /** True when at least one of {@code tolerations} (null = none) matches {@code taint}. */
  public static boolean tolerated(Taint taint, List<Toleration> tolerations) {
    return tolerations != null
        && tolerations.stream().anyMatch(t -> t != null && t.tolerates(taint));
  }

  /**
   * True when the first of {@code tolerations} (null = none) that matches {@code taint} has no
   * {@code tolerationSeconds} ({@link #secondsTolerated}): the taint is tolerated for good. A
   * toleration with {@code tolerationSeconds} (our v1alpha2) only tolerates a NoExecute taint for a
   * while.
   */
  public static boolean toleratedForever(Taint taint, List<Toleration> tolerations) {
    Long seconds = secondsTolerated(taint, tolerations);
    return seconds != null && seconds == FOREVER;
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

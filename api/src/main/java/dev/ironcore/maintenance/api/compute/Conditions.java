package dev.ironcore.maintenance.api.compute;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * MachinePool condition helpers with IronCore's semantics: setting a condition always refreshes
 * {@code lastUpdateTime}; {@code lastTransitionTime} changes only when {@code status} changes.
 * Times are written as RFC 3339 UTC seconds ({@code 2026-11-29T08:00:00Z}), as metav1.Time is.
 */
public final class Conditions {
  private Conditions() {}

  /** The condition of {@code type} in {@code conditions} (null = none), or null. */
  public static Condition find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    return conditions.stream()
        .filter(c -> c != null && type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  /**
   * A copy of {@code existing} (may be null) with {@code type} set to the given values; other
   * conditions and their order are kept, a new condition is appended.
   *
   * @param observedGeneration the object generation this condition was computed from, or null
   * @param now the time written into {@code lastUpdateTime} (and {@code lastTransitionTime} on a
   *     status change)
   */
  public static List<Condition> set(
      List<Condition> existing,
      String type,
      String status,
      String reason,
      String message,
      Long observedGeneration,
      Instant now) {
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    List<Condition> result = new ArrayList<>(existing == null ? List.of() : existing);
    Condition previous = find(result, type);
    Condition next = new Condition();
    next.setType(type);
    next.setStatus(status);
    next.setReason(reason);
    next.setMessage(message);
    next.setObservedGeneration(observedGeneration);
    next.setLastUpdateTime(time);
    boolean transition = previous == null || !Objects.equals(previous.getStatus(), status);
    next.setLastTransitionTime(transition ? time : previous.getLastTransitionTime());
    if (previous == null) {
      result.add(next);
    } else {
      result.set(result.indexOf(previous), next);
    }
    return result;
  }
}

package dev.ironcore.maintenance.controller.drain;

import java.time.Duration;
import java.util.List;

/**
 * Everything one drain pass decided, for the reconciler to carry out.
 *
 * @param step the single write to make (or none)
 * @param condition the pool's wanted {@code Maintenance} condition, or null to leave it as it is
 *     (no pool, or nothing to say)
 * @param events events to record, each with its {@link DrainEvent.When}
 * @param requeueAfter when to look again without an event, or null (wait for the next event)
 */
public record DrainOutcome(
    DrainStep step,
    MaintenanceCondition condition,
    List<DrainEvent> events,
    Duration requeueAfter) {
  public DrainOutcome {
    events = List.copyOf(events);
  }

  static DrainOutcome of(DrainStep step) {
    return new DrainOutcome(step, null, List.of(), null);
  }
}

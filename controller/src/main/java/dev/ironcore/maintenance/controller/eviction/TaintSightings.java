package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.compute.Taint;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When the controller first saw each NoExecute taint of each pool, in memory: the added time of a
 * taint without {@code timeAdded} (e.g. written while the mutating webhook was not installed).
 * Taints are told apart by key, value and effect. A restart forgets them (such taints start
 * counting again); taints with {@code timeAdded} do not need this. Thread-safe.
 */
final class TaintSightings {
  private record Id(String pool, String key, String value, String effect) {}

  private final Map<Id, Instant> firstSeen = new ConcurrentHashMap<>();

  /**
   * @return when {@code taint} of {@code pool} was first seen; {@code now} on the first call
   */
  Instant firstSeen(String pool, Taint taint, Instant now) {
    return firstSeen.computeIfAbsent(id(pool, taint), k -> now);
  }

  /** Forgets the taints of {@code pool} that are not among {@code present} (null: all of them). */
  void retain(String pool, List<Taint> present) {
    firstSeen
        .keySet()
        .removeIf(
            id ->
                id.pool().equals(pool)
                    && (present == null
                        || present.stream().noneMatch(t -> t != null && id(pool, t).equals(id))));
  }

  /**
   * @return how many sightings are remembered
   */
  int size() {
    return firstSeen.size();
  }

  private static Id id(String pool, Taint taint) {
    return new Id(
        pool,
        Objects.toString(taint.getKey(), ""),
        Objects.toString(taint.getValue(), ""),
        Objects.toString(taint.getEffect(), ""));
  }
}

package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.compute.MachinePool;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The pool an eviction is decided on, confirmed against the API server before the Machine's DELETE,
 * which cannot be undone: the cached pool when the API server answered with the same
 * resourceVersion within {@link #FRESH_FOR}, else the pool as one GET returns it now. A pool watch
 * that lags or stalled unnoticed (up to about a minute, see the informer watchdog) would otherwise
 * evict on a taint an operator has already removed (code review, session 50). Draining a pool costs
 * about one GET per second of evictions, not one per Machine. Thread-safe.
 */
final class LivePoolCheck {
  /** How long a pool read from the API server confirms a cached pool of the same version. */
  static final Duration FRESH_FOR = Duration.ofSeconds(1);

  /** Above this many remembered pools, reads older than {@link #FRESH_FOR} are forgotten. */
  private static final int PRUNE_ABOVE = 4096;

  private record Read(String resourceVersion, Instant at) {}

  private final Function<String, MachinePool> live;
  private final Map<String, Read> reads = new ConcurrentHashMap<>();

  /**
   * @param live one GET of the pool of that name: the pool, or null when it does not exist; throws
   *     what the client throws (the queue retries)
   */
  LivePoolCheck(Function<String, MachinePool> live) {
    this.live = live;
  }

  /**
   * @param name the pool's name
   * @param cached the pool as the cache has it (not null)
   * @param now the current time
   * @return {@code cached} when confirmed, else the live pool; null when the pool does not exist
   *     any more
   */
  MachinePool confirm(String name, MachinePool cached, Instant now) {
    Read read = reads.get(name);
    String version = resourceVersion(cached);
    if (read != null
        && version != null
        && version.equals(read.resourceVersion())
        && !now.isBefore(read.at())
        && !now.isAfter(read.at().plus(FRESH_FOR))) {
      return cached;
    }
    MachinePool pool = live.apply(name);
    if (pool == null) {
      reads.remove(name);
      return null;
    }
    if (reads.size() > PRUNE_ABOVE) {
      reads.values().removeIf(r -> now.isAfter(r.at().plus(FRESH_FOR)));
    }
    // two workers' reads may end in either order: the later read stays
    reads.merge(
        name,
        new Read(resourceVersion(pool), now),
        (kept, fresh) -> fresh.at().isBefore(kept.at()) ? kept : fresh);
    return Objects.equals(resourceVersion(pool), version) ? cached : pool;
  }

  private static String resourceVersion(MachinePool pool) {
    return pool.getMetadata() == null ? null : pool.getMetadata().getResourceVersion();
  }
}

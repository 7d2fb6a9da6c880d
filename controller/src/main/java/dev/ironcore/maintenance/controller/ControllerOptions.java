package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.controller.drain.DrainPolicy;
import java.time.Duration;

/**
 * The controller's settings.
 *
 * @param capiMachineSelector label selector for CAPI Machines ({@code --capi-machine-selector});
 *     empty = all
 * @param resyncPeriod how often cached objects are replayed to the loops, to catch missed events
 * @param workers worker threads per loop, except the health loop
 * @param healthWorkers worker threads of the pool health loop ({@code --pool-health-workers})
 * @param gracePeriod pool health: how long Lease and Ready may stand still before Ready=Unknown
 *     ({@code --machine-pool-lifecycle-grace-period})
 * @param drainPolicy {@code --drain-timeout} and {@code --max-concurrent-drains}
 */
public record ControllerOptions(
    String capiMachineSelector,
    Duration resyncPeriod,
    int workers,
    int healthWorkers,
    Duration gracePeriod,
    DrainPolicy drainPolicy) {

  /** Default of {@code --machine-pool-lifecycle-grace-period}, as IronCore's. */
  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(50);

  /**
   * Default of {@code --pool-health-workers}: 16. Ready=Unknown writes come in bursts (a zone whose
   * poollets all stop), and each worker mostly waits for the API server's answer: with 1,000 such
   * pools ({@code make bench}, fleet part, 2026-12-01) 8 workers marked them about twice as fast as
   * 2, and 16 kept pace with the renewals that had stopped (every pool Unknown within grace + 1 s,
   * in two runs) where 8 did not (884 and 967 of 1,000). A worker is an idle thread otherwise.
   */
  public static final int DEFAULT_HEALTH_WORKERS = 16;

  /**
   * Defaults: all CAPI Machines, 5 min resync, 2 workers (16 for the health loop), 50 s grace
   * period, 30 min drain timeout, unlimited concurrent drains.
   */
  public static ControllerOptions defaults() {
    return new ControllerOptions(
        "",
        Duration.ofMinutes(5),
        2,
        DEFAULT_HEALTH_WORKERS,
        DEFAULT_GRACE_PERIOD,
        DrainPolicy.defaults());
  }

  public ControllerOptions withDrainPolicy(DrainPolicy policy) {
    return new ControllerOptions(
        capiMachineSelector, resyncPeriod, workers, healthWorkers, gracePeriod, policy);
  }

  public ControllerOptions withGracePeriod(Duration d) {
    return new ControllerOptions(
        capiMachineSelector, resyncPeriod, workers, healthWorkers, d, drainPolicy);
  }

  public ControllerOptions withCapiMachineSelector(String selector) {
    return new ControllerOptions(
        selector, resyncPeriod, workers, healthWorkers, gracePeriod, drainPolicy);
  }

  public ControllerOptions withResyncPeriod(Duration d) {
    return new ControllerOptions(
        capiMachineSelector, d, workers, healthWorkers, gracePeriod, drainPolicy);
  }
}

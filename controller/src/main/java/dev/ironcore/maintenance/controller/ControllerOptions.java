package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.controller.drain.DrainPolicy;
import java.time.Duration;

/**
 * The controller's settings.
 *
 * @param capiMachineSelector label selector for CAPI Machines ({@code --capi-machine-selector});
 *     empty = all
 * @param resyncPeriod how often cached objects are replayed to the loops, to catch missed events
 * @param workers worker threads per loop
 * @param gracePeriod pool health: how long Lease and Ready may stand still before Ready=Unknown
 *     ({@code --machine-pool-lifecycle-grace-period})
 * @param drainPolicy {@code --drain-timeout} and {@code --max-concurrent-drains}
 */
public record ControllerOptions(
    String capiMachineSelector,
    Duration resyncPeriod,
    int workers,
    Duration gracePeriod,
    DrainPolicy drainPolicy) {

  /** Default of {@code --machine-pool-lifecycle-grace-period}, as IronCore's. */
  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(50);

  /**
   * Defaults: all CAPI Machines, 5 min resync, 2 workers, 50 s grace period, 30 min drain timeout,
   * unlimited concurrent drains.
   */
  public static ControllerOptions defaults() {
    return new ControllerOptions(
        "", Duration.ofMinutes(5), 2, DEFAULT_GRACE_PERIOD, DrainPolicy.defaults());
  }

  public ControllerOptions withDrainPolicy(DrainPolicy policy) {
    return new ControllerOptions(capiMachineSelector, resyncPeriod, workers, gracePeriod, policy);
  }

  public ControllerOptions withGracePeriod(Duration d) {
    return new ControllerOptions(capiMachineSelector, resyncPeriod, workers, d, drainPolicy);
  }

  public ControllerOptions withCapiMachineSelector(String selector) {
    return new ControllerOptions(selector, resyncPeriod, workers, gracePeriod, drainPolicy);
  }

  public ControllerOptions withResyncPeriod(Duration d) {
    return new ControllerOptions(capiMachineSelector, d, workers, gracePeriod, drainPolicy);
  }
}

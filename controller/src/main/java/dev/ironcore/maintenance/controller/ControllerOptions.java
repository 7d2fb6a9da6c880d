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
 * @param simulatePoollet LOCAL ONLY: run the {@link
 *     dev.ironcore.maintenance.controller.sim.PoolletSimulator}
 * @param poolletShutdownDelay the simulated VM shutdown time
 * @param simulateCapi LOCAL ONLY: run the {@link
 *     dev.ironcore.maintenance.controller.sim.CapiStandIn}
 * @param gracePeriod pool health: how long Lease and Ready may stand still before Ready=Unknown
 *     ({@code --machine-pool-lifecycle-grace-period})
 * @param drainPolicy {@code --drain-timeout} and {@code --max-concurrent-drains}
 */
public record ControllerOptions(
    String capiMachineSelector,
    Duration resyncPeriod,
    int workers,
    boolean simulatePoollet,
    Duration poolletShutdownDelay,
    boolean simulateCapi,
    Duration gracePeriod,
    DrainPolicy drainPolicy) {

  /** Default of {@code --machine-pool-lifecycle-grace-period}, as IronCore's. */
  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(50);

  /**
   * Defaults: all CAPI Machines, 5 min resync, 2 workers, no simulators, 50 s grace period, 30 min
   * drain timeout, unlimited concurrent drains.
   */
  public static ControllerOptions defaults() {
    return new ControllerOptions(
        "",
        Duration.ofMinutes(5),
        2,
        false,
        Duration.ofSeconds(2),
        false,
        DEFAULT_GRACE_PERIOD,
        DrainPolicy.defaults());
  }

  public ControllerOptions withDrainPolicy(DrainPolicy policy) {
    return new ControllerOptions(
        capiMachineSelector,
        resyncPeriod,
        workers,
        simulatePoollet,
        poolletShutdownDelay,
        simulateCapi,
        gracePeriod,
        policy);
  }

  public ControllerOptions withGracePeriod(Duration d) {
    return new ControllerOptions(
        capiMachineSelector,
        resyncPeriod,
        workers,
        simulatePoollet,
        poolletShutdownDelay,
        simulateCapi,
        d,
        drainPolicy);
  }

  public ControllerOptions withCapiMachineSelector(String selector) {
    return new ControllerOptions(
        selector,
        resyncPeriod,
        workers,
        simulatePoollet,
        poolletShutdownDelay,
        simulateCapi,
        gracePeriod,
        drainPolicy);
  }

  public ControllerOptions withResyncPeriod(Duration d) {
    return new ControllerOptions(
        capiMachineSelector,
        d,
        workers,
        simulatePoollet,
        poolletShutdownDelay,
        simulateCapi,
        gracePeriod,
        drainPolicy);
  }

  public ControllerOptions withSimulators(boolean poollet, Duration shutdownDelay, boolean capi) {
    return new ControllerOptions(
        capiMachineSelector,
        resyncPeriod,
        workers,
        poollet,
        shutdownDelay,
        capi,
        gracePeriod,
        drainPolicy);
  }
}

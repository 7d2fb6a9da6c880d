package dev.ironcore.maintenance.controller.drain;

import static dev.ironcore.maintenance.controller.Fixtures.machine;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Toleration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Machine that tolerates the maintenance NoExecute taint only for a while (tolerationSeconds,
 * even 0) still blocks the drain until it is gone: the eviction loop evicts it when its time is up.
 */
class TimedTolerationBlocksDrainTest {
  private static Toleration maintenance(Long seconds) {
    Toleration t = new Toleration(Names.MAINTENANCE_TAINT_KEY, "Exists", null, "NoExecute");
    t.setTolerationSeconds(seconds);
    return t;
  }

  @Test
  void onlyAToleranceWithoutSecondsLetsTheDrainPass() {
    var p =
        pool(
            "pool-a",
            DrainDecision.MAINTENANCE_TAINTS.toArray(
                new dev.ironcore.maintenance.api.compute.Taint[0]));
    assertThat(
            DrainDecision.blockingMachines(
                p,
                List.of(
                    machine("zero", "pool-a", false, maintenance(0L)),
                    machine("hour", "pool-a", false, maintenance(3600L)),
                    machine("both", "pool-a", false, maintenance(5L), maintenance(null)),
                    machine("forever", "pool-a", false, maintenance(null)))))
        .containsExactly("ns/hour", "ns/zero");
  }
}

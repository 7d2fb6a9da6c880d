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

  @Test
  void aMachineThatCannotBeReadBlocksAndIsNamedWithWhy() {
    var p =
        pool(
            "pool-a",
            DrainDecision.MAINTENANCE_TAINTS.toArray(
                new dev.ironcore.maintenance.api.compute.Taint[0]));
    var bad = machine("bad", "pool-a", false, maintenance(null));
    bad.salvage(
        "spec.tolerations[0].tolerationSeconds: Cannot deserialize value of type `java.lang.Long`"
            + " from String \"abc\": not a valid `java.lang.Long` value",
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
            .objectNode()
            .set(
                "spec",
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                    .objectNode()
                    .set(
                        "machinePoolRef",
                        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                            .objectNode()
                            .put("name", "pool-a"))));
    List<String> blocking =
        DrainDecision.blockingMachines(
            p, List.of(bad, machine("forever", "pool-a", false, maintenance(null))));
    assertThat(blocking)
        .containsExactly(
            "ns/bad (its spec cannot be read: spec.tolerations[0].tolerationSeconds: Cannot"
                + " deserialize value of type `java.lang.Long` from String \"abc\": not a valid"
                + " ...)");
    assertThat(DrainDecision.waitingFor(blocking))
        .startsWith("waiting for 1 Machine: ns/bad (its spec cannot be read: ");
  }
}

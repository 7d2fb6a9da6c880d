package dev.ironcore.maintenance.controller.drain;

import static dev.ironcore.maintenance.controller.Fixtures.machine;
import static dev.ironcore.maintenance.controller.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Taint;
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
                    // the first matching toleration decides, as in Kubernetes' taint manager
                    machine("both", "pool-a", false, maintenance(5L), maintenance(null)),
                    machine("reversed", "pool-a", false, maintenance(null), maintenance(5L)),
                    machine("forever", "pool-a", false, maintenance(null)))))
        .containsExactly(
            "ns/both (tolerates the taint for 5 s)",
            "ns/hour (tolerates the taint for 3600 s)",
            "ns/zero (tolerates the taint for 0 s)");
  }

  /** Each blocking Machine says what it waits for: its finalizers, its time, or the eviction. */
  @Test
  void eachBlockingMachineSaysWhatItWaitsFor() {
    Taint noExecute = new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoExecute");
    noExecute.setTimeAdded("2026-12-04T18:00:00Z");
    var p = pool("pool-a", DrainDecision.MAINTENANCE_TAINTS.get(0), noExecute);
    var held = machine("held", "pool-a", true);
    held.getMetadata().setFinalizers(List.of("machinepoollet.ironcore.dev/machine"));
    var twice = machine("twice", "pool-a", true);
    twice.getMetadata().setFinalizers(List.of("a.example/one", "b.example/two"));
    assertThat(
            DrainDecision.blockingMachines(
                p,
                List.of(
                    machine("plain", "pool-a", false),
                    held,
                    twice,
                    machine("gone", "pool-a", true),
                    machine("hour", "pool-a", false, maintenance(3600L)),
                    machine("huge", "pool-a", false, maintenance(Long.MAX_VALUE)),
                    machine("deleting-but-tolerant", "pool-a", true, maintenance(null)))))
        .containsExactly(
            "ns/gone (deleting)",
            "ns/held (deleting, held by finalizer machinepoollet.ironcore.dev/machine)",
            "ns/hour (tolerates the taint for 3600 s: eviction due at 2026-12-04T19:00:00Z)",
            "ns/huge (tolerates the taint for " + Long.MAX_VALUE + " s)",
            "ns/plain (to be evicted)",
            "ns/twice (deleting, held by finalizers a.example/one, b.example/two)");
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

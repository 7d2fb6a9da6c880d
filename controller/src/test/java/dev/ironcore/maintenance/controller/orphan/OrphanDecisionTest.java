package dev.ironcore.maintenance.controller.orphan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrphanDecisionTest {
  private static final Duration GRACE = Duration.ofMinutes(5);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private static Machine machine(boolean deleting, String pool, String... finalizers) {
    Machine m = new Machine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName("m")
            .withNamespace("ns")
            .withDeletionTimestamp(deleting ? "2026-01-01T00:00:00Z" : null)
            .withFinalizers(List.of(finalizers))
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachinePoolRef(pool == null ? null : new LocalRef(pool));
    m.setSpec(spec);
    return m;
  }

  @Test
  void aDeletingMachineOfAMissingPoolWaitsTheGraceThenIsReleased() {
    Machine m = machine(true, "gone", Names.POOLLET_FINALIZER);
    assertThat(OrphanDecision.decide(m, false, null, T0, GRACE))
        .isEqualTo(new OrphanDecision.Wait(GRACE));
    assertThat(OrphanDecision.decide(m, false, T0, T0.plusSeconds(60), GRACE))
        .isEqualTo(new OrphanDecision.Wait(Duration.ofMinutes(4)));
    assertThat(OrphanDecision.decide(m, false, T0, T0.plus(GRACE), GRACE))
        .isEqualTo(new OrphanDecision.Release());
  }

  @Test
  void anythingElseIsNotOrphaned() {
    OrphanDecision.Outcome no = new OrphanDecision.NotOrphaned();
    Instant late = T0.plus(Duration.ofHours(1));
    assertThat(
            OrphanDecision.decide(
                machine(true, "p", Names.POOLLET_FINALIZER), true, T0, late, GRACE))
        .as("pool exists")
        .isEqualTo(no);
    assertThat(
            OrphanDecision.decide(
                machine(false, "gone", Names.POOLLET_FINALIZER), false, T0, late, GRACE))
        .as("not deleting")
        .isEqualTo(no);
    assertThat(
            OrphanDecision.decide(
                machine(true, null, Names.POOLLET_FINALIZER), false, T0, late, GRACE))
        .as("unbound")
        .isEqualTo(no);
    assertThat(OrphanDecision.decide(machine(true, "gone", "other/f"), false, T0, late, GRACE))
        .as("no poollet finalizer")
        .isEqualTo(no);
  }

  /**
   * The release's message gives the time this process saw the Machine orphaned, not the grace
   * period (fresh eyes, session 47: "waited 40s" after 2m51s, the grace counted anew by each
   * leader).
   */
  @Test
  void theReleaseMessageSaysHowLongThisControllerSawItOrphaned() {
    assertThat(
            OrphanedMachineReconciler.releasedMessage(
                "ghost",
                java.time.Instant.parse("2026-12-07T10:44:21.600Z"),
                java.time.Instant.parse("2026-12-07T10:47:12.100Z"),
                java.time.Duration.ofSeconds(40)))
        .isEqualTo(
            "Removed finalizer machinepoollet.ironcore.dev/machine: the Machine is deleting and"
                + " its MachinePool ghost does not exist, so no poollet can release it (seen so by"
                + " this controller since 2026-12-07T10:44:21Z, 2m50s;"
                + " --orphaned-machine-grace=40s)");
  }
}

package dev.ironcore.maintenance.controller.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProgressThrottleTest {
  private static final Instant WRITTEN = Instant.parse("2026-11-30T10:00:00Z");
  private static final MaintenanceCondition NEXT =
      MaintenanceCondition.draining("waiting for 9 Machines: ns/a, ns/b");

  private static MachinePool showing(String status, String reason, String message) {
    MachinePool p = new MachinePool();
    p.setMetadata(new ObjectMetaBuilder().withName("pool-a").build());
    p.setStatus(new MachinePoolStatus());
    p.getStatus()
        .setConditions(
            Conditions.set(null, MaintenanceCondition.TYPE, status, reason, message, 1L, WRITTEN));
    return p;
  }

  @Test
  void aChangedProgressMessageWaitsForTheRestOfTheInterval() {
    MachinePool p = showing("False", "Draining", "waiting for 10 Machines: ns/a, ns/b");
    assertThat(ProgressThrottle.delay(p, NEXT, WRITTEN, WRITTEN.plusMillis(500)))
        .isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void writtenOnceTheIntervalHasPassed() {
    MachinePool p = showing("False", "Draining", "waiting for 10 Machines: ns/a, ns/b");
    assertThat(ProgressThrottle.delay(p, NEXT, WRITTEN, WRITTEN.plus(ProgressThrottle.INTERVAL)))
        .isNull();
  }

  @Test
  void aTransitionIsNeverHeldBack() {
    MachinePool queued = showing("False", "DrainQueued", "queued");
    assertThat(ProgressThrottle.delay(queued, NEXT, WRITTEN, WRITTEN.plusMillis(1))).isNull();
    MachinePool draining = showing("False", "Draining", "waiting for 1 Machine: ns/a");
    MaintenanceCondition stuck = MaintenanceCondition.stuck("longer than --drain-timeout");
    assertThat(ProgressThrottle.delay(draining, stuck, WRITTEN, WRITTEN.plusMillis(1))).isNull();
  }

  @Test
  void anUnchangedMessageIsNotHeldBackSoItsEventCountKeepsGrowing() {
    MachinePool same = showing("False", "Draining", NEXT.message());
    assertThat(ProgressThrottle.delay(same, NEXT, WRITTEN, WRITTEN.plusMillis(1))).isNull();
  }

  @Test
  void nothingHeldBackBeforeTheFirstWriteOrWithoutAPool() {
    MachinePool p = showing("False", "Draining", "waiting for 10 Machines: ns/a, ns/b");
    assertThat(ProgressThrottle.delay(p, NEXT, null, WRITTEN)).isNull();
    assertThat(ProgressThrottle.delay(null, NEXT, WRITTEN, WRITTEN)).isNull();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolStatus;
import dev.ironcore.maintenance.controller.health.PoolUnknownWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The health loop's write of Ready=Unknown against the real API server, starting from the
 * informer's copy: fresh, stale (someone wrote the pool since), already Unknown, and deleted.
 */
class PoolUnknownWriterE2ETest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
  private final ControllerWorld world = new ControllerWorld();
  private final PoolUnknownWriter writer =
      new PoolUnknownWriter(world.ironcore, Clock.fixed(NOW, ZoneOffset.UTC));

  private MachinePool readyPool(String name) {
    world.createPool(name, List.of());
    MachinePool p = world.pool(name);
    MachinePoolStatus status = new MachinePoolStatus();
    status.setState("Ready");
    status.setConditions(
        Conditions.set(
            null, Names.READY_CONDITION, "True", "Ready", "ok", 1L, NOW.minusSeconds(60)));
    p.setStatus(status);
    return world.ironcore.resources(MachinePool.class).resource(p).updateStatus();
  }

  private Condition ready(String pool) {
    return Conditions.find(world.pool(pool).getStatus().getConditions(), Names.READY_CONDITION);
  }

  @Test
  void aFreshCopyIsWritten() {
    String name = world.poolName("fresh");
    MachinePool cached = readyPool(name);

    assertThat(writer.markUnknown(cached)).isNotNull();

    Condition ready = ready(name);
    assertThat(ready.getStatus()).isEqualTo("Unknown");
    assertThat(ready.getReason()).isEqualTo(Names.POOL_STATUS_UNKNOWN_REASON);
    assertThat(ready.getLastTransitionTime()).isEqualTo(NOW.toString());
  }

  @Test
  void aStaleCopyIsRefusedByTheApiServerAndRetriedOnAFreshRead() {
    String name = world.poolName("stale");
    MachinePool cached = readyPool(name);
    // someone writes the pool after the informer's copy was taken
    MachinePool newer = world.pool(name);
    newer.getMetadata().setLabels(java.util.Map.of("touched", "yes"));
    world.ironcore.resources(MachinePool.class).resource(newer).update();

    assertThat(writer.markUnknown(cached)).isNotNull();

    assertThat(ready(name).getStatus()).isEqualTo("Unknown");
    assertThat(world.pool(name).getMetadata().getLabels()).containsEntry("touched", "yes");
  }

  @Test
  void aStaleCopyOfAPoolAlreadyUnknownWritesNothing() {
    String name = world.poolName("already");
    MachinePool cached = readyPool(name);
    assertThat(writer.markUnknown(world.pool(name))).isNotNull();
    String rv = world.pool(name).getMetadata().getResourceVersion();

    assertThat(writer.markUnknown(cached)).as("live pool is already Unknown").isNull();
    assertThat(world.pool(name).getMetadata().getResourceVersion()).isEqualTo(rv);
  }

  @Test
  void aDeletedPoolIsSkipped() {
    String name = world.poolName("gone");
    MachinePool cached = readyPool(name);
    world.ironcore.resources(MachinePool.class).withName(name).delete();
    ControllerWorld.eventually().until(() -> world.pool(name) == null);

    assertThat(writer.markUnknown(cached)).isNull();
  }
}

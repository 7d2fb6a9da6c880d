package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.drain.PoolDelete;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The drain's pool DELETE against the real API server: only the pool object the drain decided on is
 * deleted, not one of the same name re-created meanwhile (a cache that lags still shows the old
 * one).
 */
class PoolDeleteE2ETest {
  private final ControllerWorld world = new ControllerWorld();

  private MachinePool live(String name) {
    return world.ironcore.resources(MachinePool.class).withName(name).get();
  }

  @Test
  void aPoolReCreatedUnderTheSameNameIsNotDeletedTheDrainedOneIs() {
    java.util.concurrent.atomic.AtomicInteger announced =
        new java.util.concurrent.atomic.AtomicInteger();
    String name = world.poolName("recreated");
    String drained = world.createPool(name, List.of()).getMetadata().getUid();
    world.ironcore.resources(MachinePool.class).withName(name).delete();
    world
        .ironcore
        .resources(MachinePool.class)
        .withName(name)
        .waitUntilCondition(p -> p == null, 30, java.util.concurrent.TimeUnit.SECONDS);
    String registeredAgain = world.createPool(name, List.of()).getMetadata().getUid();
    assertThat(registeredAgain).isNotEqualTo(drained);

    assertThatThrownBy(
            () -> PoolDelete.ifSame(world.writer, name, drained, announced::incrementAndGet))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is another object (uid " + registeredAgain + ")")
        .hasMessageContaining("than the one drained (uid " + drained + ")");
    assertThat(live(name)).isNotNull();
    assertThat(live(name).getMetadata().getDeletionTimestamp()).isNull();
    assertThat(announced).as("no PoolDeleted event for a pool not deleted").hasValue(0);

    assertThat(PoolDelete.ifSame(world.writer, name, registeredAgain, announced::incrementAndGet))
        .isTrue();
    world
        .ironcore
        .resources(MachinePool.class)
        .withName(name)
        .waitUntilCondition(p -> p == null, 30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(PoolDelete.ifSame(world.writer, name, registeredAgain, announced::incrementAndGet))
        .as("already gone")
        .isFalse();
  }
}

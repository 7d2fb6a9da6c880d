package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.taintStrings;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller process is killed with SIGKILL mid-drain at different points and started again;
 * the drain must complete, and the pool must never be deleted before CAPI is done with the node.
 * The test acts as the machinepoollet and as CAPI, so it decides when each phase can move on.
 */
class CrashResumeE2ETest {
  private ControllerWorld world;
  private ControllerProcess controller;
  private Path log;
  private String pool;

  @BeforeEach
  void world() throws Exception {
    world = new ControllerWorld();
    log = Files.createDirectories(Path.of("target", "crash-tests")).resolve(world.ns + ".log");
    pool = world.poolName("crash");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-2", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node", pool, Map.of());
  }

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
  }

  private void startController() throws Exception {
    controller = ControllerProcess.start(world.cp.kubeconfig(), log, "--resync-period=5s");
  }

  private void crashAndRestart() throws Exception {
    controller.kill();
    assertThat(controller.alive()).isFalse();
    startController();
  }

  private void assertPoolNotDeleted() {
    assertThat(world.pool(pool)).isNotNull();
    assertThat(world.pool(pool).getMetadata().getDeletionTimestamp()).isNull();
  }

  private void finishAfterHookRemoved() {
    eventually().until(() -> !hasHook(world.capiMachine("node")));
    assertPoolNotDeleted();
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    assertThat(world.machine("vm-tolerant").getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void killedRightAfterTheDeletionRequestTheNextProcessDoesTheWholeDrain() throws Exception {
    startController();
    eventually().until(() -> hasHook(world.capiMachine("node")));
    controller.kill();
    world.deleteCapiMachine("node");
    startController();
    eventually()
        .until(
            () ->
                world.machine("vm-1").getMetadata().getDeletionTimestamp() != null
                    && world.machine("vm-2").getMetadata().getDeletionTimestamp() != null);
    assertThat(hasHook(world.capiMachine("node"))).isTrue();
    world.poolletReleases("vm-1");
    world.poolletReleases("vm-2");
    finishAfterHookRemoved();
  }

  @Test
  void killedWhileHoldingTheHookResumesAfterMachinesWentAwayMeanwhile() throws Exception {
    startController();
    eventually().until(() -> hasHook(world.capiMachine("node")));
    world.deleteCapiMachine("node");
    eventually()
        .until(
            () ->
                taintStrings(world.pool(pool)).size() == 2
                    && world.machine("vm-1").getMetadata().getDeletionTimestamp() != null
                    && world.machine("vm-2").getMetadata().getDeletionTimestamp() != null);
    controller.kill();
    world.poolletReleases("vm-1");
    world.poolletReleases("vm-2");
    eventually().until(() -> world.machine("vm-1") == null && world.machine("vm-2") == null);
    assertThat(hasHook(world.capiMachine("node")))
        .as("nobody released the hook while the controller was down")
        .isTrue();
    startController();
    finishAfterHookRemoved();
  }

  @Test
  void killedAfterReleasingTheHookWaitsForCapiAndNeverDeletesThePoolEarly() throws Exception {
    startController();
    eventually().until(() -> hasHook(world.capiMachine("node")));
    world.deleteCapiMachine("node");
    eventually()
        .until(
            () ->
                world.machine("vm-1").getMetadata().getDeletionTimestamp() != null
                    && world.machine("vm-2").getMetadata().getDeletionTimestamp() != null);
    world.poolletReleases("vm-1");
    world.poolletReleases("vm-2");
    eventually().until(() -> !hasHook(world.capiMachine("node")));
    crashAndRestart();
    // the new process must wait for CAPI: give it a resync period to do something wrong
    eventually()
        .during(java.time.Duration.ofSeconds(6))
        .atMost(java.time.Duration.ofSeconds(10))
        .until(
            () ->
                world.pool(pool) != null
                    && world.pool(pool).getMetadata().getDeletionTimestamp() == null);
    world.capiFinishes("node");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
  }

  @Test
  void killedWithThePoolAlreadyDeletedReleasesOurFinalizer() throws Exception {
    startController();
    eventually().until(() -> hasHook(world.capiMachine("node")));
    world.poolletReleases("vm-1");
    world.poolletReleases("vm-2");
    world
        .client
        .resources(dev.ironcore.maintenance.api.compute.Machine.class)
        .inNamespace(world.ns)
        .withName("vm-1")
        .delete();
    world
        .client
        .resources(dev.ironcore.maintenance.api.compute.Machine.class)
        .inNamespace(world.ns)
        .withName("vm-2")
        .delete();
    world.deleteCapiMachine("node");
    eventually().until(() -> !hasHook(world.capiMachine("node")));
    controller.kill();
    // state of a crash between "delete the pool" and "remove our finalizer"
    world.capiFinishes("node");
    world
        .client
        .resources(dev.ironcore.maintenance.api.compute.MachinePool.class)
        .withName(pool)
        .delete();
    eventually().until(() -> world.pool(pool) == null);
    assertThat(world.capiMachine("node").getMetadata().getFinalizers())
        .containsExactly(Names.CLEANUP_FINALIZER);
    startController();
    eventually().until(() -> world.capiMachine("node") == null);
  }
}

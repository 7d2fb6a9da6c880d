package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.processStarts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Taint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Machine whose spec and status (written through the status subresource, which no webhook sees)
 * nest deeper than Jackson's defaults allow: the controller keeps watching and evicting, and a
 * controller started while that Machine exists runs (no crash loop).
 */
class DeepObjectE2ETest {
  /**
   * Levels below {@code spec.deep} / {@code status.deep}: twice what Jackson's defaults read (the
   * webhook test goes to 9,990; a status patch that deep can outlast the API server's request
   * timeout on a loaded machine).
   */
  private static final int DEPTH = 2_000;

  private ControllerWorld world;
  private ControllerProcess controller;
  private Path log;

  @BeforeEach
  void world() throws Exception {
    world = new ControllerWorld();
    log = Files.createDirectories(Path.of("target", "deep-tests")).resolve(world.ns + ".log");
  }

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
  }

  static String nested(int depth) {
    return "{\"a\":".repeat(depth - 1) + "{\"a\":1}" + "}".repeat(depth - 1);
  }

  /** Creates a bound Machine with a deep spec, then makes its status deep as well (kubectl). */
  private void createDeepMachine(String name, String pool) {
    String json =
        """
        {"apiVersion":"compute.ironcore.dev/v1alpha1","kind":"Machine",
         "metadata":{"name":"%s","namespace":"%s","finalizers":["%s"]},
         "spec":{"machineClassRef":{"name":"small"},"machinePoolRef":{"name":"%s"},"deep":%s}}
        """
            .formatted(name, world.ns, Names.POOLLET_FINALIZER, pool, nested(DEPTH));
    world.cp.kubectlTool().runWithInput(json, "create", "-f", "-").orThrow();
    world
        .cp
        .kubectl(
            "patch",
            "machines.compute.ironcore.dev",
            "-n",
            world.ns,
            name,
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"deep\":" + nested(DEPTH) + "}}")
        .orThrow();
  }

  private void taint(String pool) {
    world.kubectlPatchPool(
        pool,
        "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"k\",\"effect\":\"NoExecute\"}]}]");
  }

  private boolean deleting(String machine) {
    return world.machine(machine).getMetadata().getDeletionTimestamp() != null;
  }

  @Test
  void aDeepMachineNeitherStopsTheWatchNorTheNextStart() throws Exception {
    String pool = world.poolName("deep");
    world.createPool(pool, List.of());
    controller = ControllerProcess.start(world.cp.kubeconfig(), log, "--resync-period=5s");
    processStarts().until(() -> controller.probe("/readyz") == 200);

    createDeepMachine("vm-deep", pool);
    world.createMachine("vm-after", pool);
    taint(pool);
    eventually().until(() -> deleting("vm-deep") && deleting("vm-after"));
    assertThat(controller.probe("/healthz")).isEqualTo(200);

    // a new process lists the deep Machine at start-up and keeps working
    controller.kill();
    String second = world.poolName("deep2");
    world.createPool(second, List.of(), new Taint("k", null, "NoExecute"));
    createDeepMachine("vm-deep-2", second);
    controller = ControllerProcess.start(world.cp.kubeconfig(), log, "--resync-period=5s");
    processStarts().until(() -> controller.probe("/readyz") == 200);
    eventually().until(() -> deleting("vm-deep-2"));
    assertThat(controller.alive()).isTrue();
  }
}

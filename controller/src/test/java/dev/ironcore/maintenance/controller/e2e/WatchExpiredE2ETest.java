package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The controller's watches expire for real in the middle of a drain: while the controller is frozen
 * (SIGSTOP, as in a long pause or a partition) the API server is restarted, the cluster moves on
 * (the poollet releases Machines, a new Machine is bound to the draining pool, many other writes),
 * etcd is compacted to its current revision and the API server restarted again, so neither its
 * watch cache nor etcd holds the resourceVersions the controller resumes from. When the controller
 * runs again its watches get 410 Gone and its informers list afresh; the test sees that in {@code
 * ironcore_maintenance_informer_relists_total{reason="expired"}} and the log, then checks that the
 * drain spanning the expiry completes with the invariants of {@link DrainFlowChecks}, including
 * what changed while the watches were expired. Own control plane: the shared one is never
 * restarted.
 */
class WatchExpiredE2ETest {
  private static final int CHURN_WRITES = 100;
  private static LocalControlPlane cp;
  private ControllerProcess controller;
  private Path log;

  @BeforeAll
  static void ownControlPlane() {
    cp =
        LocalControlPlane.start(
            SharedControlPlane.binDir(),
            Path.of("target", "controlplane", ProcessHandle.current().pid() + "-expired"),
            List.of("--v=3"));
  }

  @AfterAll
  static void stopControlPlane() {
    if (cp != null) {
      cp.close();
    }
  }

  /**
   * A failure leaves what tells a stuck loop worker from a silent watch: the controller's threads
   * (in its log) and metrics ({@code <log>.metrics}); the API server logs every request ({@code
   * --v=3}, kube-apiserver.N.log under target/controlplane/*-expired).
   */
  @RegisterExtension
  final AfterTestExecutionCallback diagnoseFailure =
      context -> {
        if (context.getExecutionException().isPresent() && controller != null && log != null) {
          controller.diagnose(Path.of(log + ".metrics"));
        }
      };

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close(); // SIGKILL also ends a stopped process
    }
  }

  @Test
  void aDrainSpanningAnExpiredWatchCompletesWithWhatChangedMeanwhile() throws Exception {
    ControllerWorld world = ControllerWorld.in(cp);
    String pool = world.poolName("expired");
    List<String> first = List.of("vm-1", "vm-2", "vm-3", "vm-4");
    List<String> tolerating = List.of("vm-tolerant");
    world.createPool(pool, List.of());
    first.forEach(m -> world.createMachine(m, pool));
    tolerating.forEach(m -> world.createMachine(m, pool, toleratesMaintenance()));
    world.createCapiMachine("node", pool, Map.of());
    DrainFlowChecks checks = new DrainFlowChecks(world, "node", pool);
    log = Files.createDirectories(Path.of("target", "watch-expired")).resolve(world.ns + ".log");
    controller =
        ControllerProcess.start(
            cp.kubeconfig(),
            log,
            "--resync-period=5s",
            "--machine-pool-lifecycle-grace-period=10m");
    ControllerWorld.processStarts()
        .until(() -> controller.probe("/readyz") == 200 && hasHook(world.capiMachine("node")));

    world.deleteCapiMachine("node");
    eventually().until(() -> first.stream().allMatch(m -> deleting(world, m)));
    eventually()
        .until(() -> first.stream().allMatch(m -> checks.eventsOn(m).containsKey("Evicted")));
    assertThat(controller.metrics())
        .as("the relist counter is exported before any relist")
        .contains(
            "ironcore_maintenance_informer_relists_total{reason=\"expired\",resource=\"machines\"} 0.0");

    controller.pause();
    cp.restartApiServer(); // closes the controller's connections; nothing is buffered for it
    // the cluster moves on while the controller's watches are dead
    first.stream().limit(3).forEach(world::poolletReleases);
    world.createMachine("vm-late", pool);
    for (int i = 0; i < CHURN_WRITES; i++) {
      churn(world, "vm-tolerant", i);
    }
    long compacted = cp.compactEtcd();
    cp.restartApiServer(); // the new watch cache starts after the compaction
    controller.resume();

    eventually()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (String r : List.of("capi-machines", "machines", "machinepools")) {
                assertThat(relists(r, "expired")).as("%s relisted after 410 Gone", r).isPositive();
              }
            });
    assertThat(Files.readString(log))
        .contains("informer machines: watch expired (410 Gone: resourceVersion");
    assertThat(compacted).isPositive();
    ControllerWorld.processStarts().until(() -> controller.probe("/readyz") == 200);

    // seen only through the relist: the Machine bound while the watch was expired is evicted
    eventually().until(() -> deleting(world, "vm-late"));
    eventually().until(() -> checks.eventsOn("vm-late").containsKey("Evicted"));
    checks.hookHeld("vm-4 and vm-late still shut down");
    checks.notEvicted(tolerating);
    world.poolletReleases("vm-4");
    world.poolletReleases("vm-late");

    eventually().atMost(Duration.ofSeconds(60)).until(() -> !hasHook(world.capiMachine("node")));
    checks.poolNotDeletedYet();
    eventually()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                world.pool(pool) != null
                    && world.pool(pool).getMetadata().getDeletionTimestamp() == null);
    world.capiFinishes("node");
    eventually()
        .atMost(Duration.ofSeconds(60))
        .until(() -> world.pool(pool) == null && world.capiMachine("node") == null);
    checks.notEvicted(tolerating);
    checks.everyEventOfTheFlow(List.of("vm-1", "vm-2", "vm-3", "vm-4", "vm-late"), tolerating);
  }

  private static boolean deleting(ControllerWorld world, String machine) {
    var m = world.machine(machine);
    return m == null || m.getMetadata().getDeletionTimestamp() != null;
  }

  /** One write to a watched object that no loop acts on (a label on a tolerating Machine). */
  private static void churn(ControllerWorld world, String machine, int i) {
    world
        .ironcore
        .resources(Machine.class)
        .inNamespace(world.ns)
        .withName(machine)
        .edit(
            m -> {
              m.getMetadata().setLabels(Map.of("churn", Integer.toString(i)));
              return m;
            });
  }

  /**
   * {@code ironcore_maintenance_informer_relists_total{resource,reason}} from the controller's
   * /metrics, 0 when absent or not answering.
   */
  private long relists(String resource, String reason) {
    for (String line : controller.metrics().split("\n")) {
      if (line.startsWith("ironcore_maintenance_informer_relists_total{")
          && line.contains("resource=\"" + resource + "\"")
          && line.contains("reason=\"" + reason + "\"")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }
}

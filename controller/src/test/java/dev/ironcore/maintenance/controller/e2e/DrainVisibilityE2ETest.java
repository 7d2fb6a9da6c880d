package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ControllerOptions;
import dev.ironcore.maintenance.controller.drain.DrainPolicy;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What an operator sees of a drain through kubectl alone, against a real kube-apiserver: the pool's
 * Maintenance condition, events on the CAPI Machine (deduplicated), stuck drains, warnings.
 */
class DrainVisibilityE2ETest extends InProcessController {

  @Override
  protected ControllerOptions options() {
    return super.options()
        .withDrainPolicy(DrainPolicy.defaults().withDrainTimeout(Duration.ofSeconds(1)));
  }

  private Condition maintenance(String pool) {
    MachinePool p = world.pool(pool);
    return p == null || p.getStatus() == null
        ? null
        : Conditions.find(p.getStatus().getConditions(), "Maintenance");
  }

  private List<Event> events(String involvedName, String reason) {
    return world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
        .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }

  /** Makes the drain loop look again (a Machine change re-queues the drain of its pool). */
  private void touch(String machine, int i) {
    world
        .client
        .resources(Machine.class)
        .inNamespace(world.ns)
        .withName(machine)
        .edit(
            m -> {
              m.getMetadata().setLabels(Map.of("touched", Integer.toString(i)));
              return m;
            });
  }

  @Test
  void aHeldDrainIsVisibleInDescribeAndEventsAndItsCompletionToo() throws Exception {
    controller.close();
    controller =
        new dev.ironcore.maintenance.controller.ControllerApp(client(), super.options()).start();
    String pool = world.poolName("seen");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-2", pool);
    world.createCapiMachine("node-s", pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-s")));

    List<String> added = new CopyOnWriteArrayList<>();
    try (Watch w =
        world
            .client
            .v1()
            .events()
            .inNamespace(world.ns)
            .watch(
                new Watcher<Event>() {
                  @Override
                  public void eventReceived(Action action, Event e) {
                    if (action == Action.ADDED
                        && "node-s".equals(e.getInvolvedObject().getName())) {
                      added.add(e.getReason());
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      world.deleteCapiMachine("node-s");
      // both evicted; each named with what holds it (the poollet's finalizer, played by the test)
      String heldByThePoollet =
          "waiting for 2 Machines: "
              + world.ns
              + "/vm-1 (deleting, held by finalizer machinepoollet.ironcore.dev/machine), "
              + world.ns
              + "/vm-2 (deleting, held by finalizer machinepoollet.ironcore.dev/machine)";

      eventually()
          .untilAsserted(
              () -> {
                Condition c = maintenance(pool);
                assertThat(c).isNotNull();
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("Draining");
                assertThat(c.getMessage()).isEqualTo(heldByThePoollet);
              });
      String describe =
          world
              .cp
              .kubectl("describe", "machinepools.compute.ironcore.dev", pool)
              .orThrow()
              .stdout();
      assertThat(describe).contains("Maintenance").contains("Draining").contains(heldByThePoollet);
      assertThat(
              world
                  .cp
                  .kubectl(
                      "get",
                      "machinepools.compute.ironcore.dev",
                      pool,
                      "--no-headers",
                      "-o",
                      "custom-columns=M:.status.conditions[?(@.type==\"Maintenance\")].reason")
                  .orThrow()
                  .stdout()
                  .trim())
          .isEqualTo("Draining");
      assertThat(
              world.cp.kubectl("get", "machinepools.compute.ironcore.dev", pool).orThrow().stdout())
          .as("printer columns")
          .contains("MAINTENANCE")
          .contains("Draining");
      eventually().until(() -> added.contains("DrainBlocked"));
      assertThat(added.indexOf("DrainStarted"))
          .isNotNegative()
          .isLessThan(added.indexOf("DrainBlocked"));
      String events =
          world
              .cp
              .kubectl(
                  "get", "events", "-n", world.ns, "--field-selector", "involvedObject.name=node-s")
              .orThrow()
              .stdout();
      assertThat(events).contains("DrainStarted").contains("DrainBlocked");

      world.poolletReleases("vm-1");
      world.poolletReleases("vm-2");
      eventually().until(() -> !hasHook(world.capiMachine("node-s")));
      eventually()
          .untilAsserted(
              () -> {
                Condition c = maintenance(pool);
                assertThat(c.getStatus()).isEqualTo("True");
                assertThat(c.getReason()).isEqualTo("Drained");
                assertThat(c.getLastTransitionTime()).isNotNull();
              });
      world.capiFinishes("node-s");
      eventually().until(() -> world.pool(pool) == null);
      eventually().until(() -> added.contains("DrainCompleted") && added.contains("PoolDeleted"));
      assertThat(added.indexOf("DrainCompleted")).isLessThan(added.indexOf("PoolDeleted"));
    }
  }

  @Test
  void aDrainLongerThanTheTimeoutIsStuckOnceKeepsTheHookAndRepeatsRaiseOneEventsCount() {
    String pool = world.poolName("stuck");
    poolWithOneMachineAndHookedCapiMachine(pool, "never", "node-t");
    world.deleteCapiMachine("node-t");

    eventually()
        .until(
            () -> maintenance(pool) != null && "DrainStuck".equals(maintenance(pool).getReason()));
    assertThat(maintenance(pool).getMessage())
        .contains("longer than --drain-timeout=1s")
        .endsWith(
            "waiting for 1 Machine: "
                + world.ns
                + "/never (deleting, held by finalizer machinepoollet.ironcore.dev/machine)");
    String conditionWritten = world.pool(pool).getMetadata().getResourceVersion();
    for (int i = 0; i < 8; i++) {
      touch("never", i);
    }
    eventually()
        .untilAsserted(
            () -> {
              // before its eviction the Machine was "(to be evicted)": another state, another Event
              List<Event> blocked =
                  events("node-t", "DrainBlocked").stream()
                      .filter(
                          e ->
                              e.getMessage()
                                  .endsWith(
                                      "/never (deleting, held by finalizer"
                                          + " machinepoollet.ironcore.dev/machine)"))
                      .toList();
              assertThat(blocked)
                  .as("one DrainBlocked object for the same blocked state")
                  .hasSize(1);
              assertThat(blocked.get(0).getCount()).isGreaterThanOrEqualTo(8);
            });
    List<Event> stuck = events("node-t", "DrainStuck");
    assertThat(stuck).hasSize(1);
    assertThat(stuck.get(0).getType()).isEqualTo("Warning");
    assertThat(stuck.get(0).getCount()).as("recorded on the transition only").isEqualTo(1);
    assertThat(stuck.get(0).getMessage()).contains(world.ns + "/never");
    assertThat(hasHook(world.capiMachine("node-t"))).as("never released by force").isTrue();
    assertThat(world.machine("never")).isNotNull();
    assertThat(world.pool(pool).getMetadata().getResourceVersion())
        .as("condition not rewritten while unchanged")
        .isEqualTo(conditionWritten);
    String watching =
        world
            .eventsJsonpath("node-t", "DrainBlocked", "{range .items[*]}{.count}{\"\\n\"}{end}")
            .trim();
    assertThat(watching.lines().mapToInt(Integer::parseInt).max().orElse(0))
        .isGreaterThanOrEqualTo(8);
  }

  @Test
  void aPoolThatIsGoneWhileMachinesAreStillBoundToItsNameIsAWarningNamingThem() {
    String pool = world.poolName("gone");
    world.createMachine("orphan-1", pool);
    world.createMachine("orphan-2", pool);
    world.createCapiMachine("node-g", pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-g")));
    world.deleteCapiMachine("node-g");
    eventually().until(() -> !hasHook(world.capiMachine("node-g")));
    eventually().until(() -> !events("node-g", "PoolMissing").isEmpty());
    Event e = events("node-g", "PoolMissing").get(0);
    assertThat(e.getType()).isEqualTo("Warning");
    assertThat(e.getMessage())
        .contains("pool " + pool + " does not exist")
        .contains(world.ns + "/orphan-1, " + world.ns + "/orphan-2");
  }

  /**
   * A held drain's row in {@code ironcore_maintenance_drain_blocking_machines} goes when its CAPI
   * Machine goes while held (its finalizers removed by hand), not only when the drain ends.
   */
  @Test
  void aHeldDrainsBlockingRowGoesWithItsCapiMachine() {
    String pool = world.poolName("abandoned");
    poolWithOneMachineAndHookedCapiMachine(pool, "vm-a", "node-a");
    world.deleteCapiMachine("node-a");
    String row = "ironcore_maintenance_drain_blocking_machines{pool=\"" + pool + "\"} 1.0";
    eventually().until(() -> scrape().contains(row));
    world
        .cp
        .kubectl(
            "patch",
            "machines.cluster.x-k8s.io",
            "node-a",
            "-n",
            world.ns,
            "--type=merge",
            "-p",
            "{\"metadata\":{\"finalizers\":null}}")
        .orThrow();
    eventually().until(() -> world.capiMachine("node-a") == null);
    eventually()
        .untilAsserted(
            () ->
                assertThat(scrape())
                    .doesNotContain("ironcore_maintenance_drain_blocking_machines{pool=\"" + pool));
  }

  @Test
  void aHookRemovedBySomeoneElseWhileMachinesBlockIsAWarningNamingThem() {
    String pool = world.poolName("hijacked");
    poolWithOneMachineAndHookedCapiMachine(pool, "still-here", "node-h");
    world.deleteCapiMachine("node-h");
    eventually().until(() -> maintenance(pool) != null);
    world.writer.patchMetadata(
        world
            .client
            .resources(dev.ironcore.maintenance.api.capi.CapiMachine.class)
            .inNamespace(world.ns)
            .withName("node-h"),
        ed -> ed.removeAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION));
    eventually().until(() -> !events("node-h", "DrainHookRemoved").isEmpty());
    Event e = events("node-h", "DrainHookRemoved").get(0);
    assertThat(e.getType()).isEqualTo("Warning");
    assertThat(e.getMessage())
        .contains("removed by someone else")
        .contains(world.ns + "/still-here");
    assertThat(hasHook(world.capiMachine("node-h"))).as("we do not put it back").isFalse();

    // the passes after it see the same state: one hand edit is one Warning, not one per pass
    // (fresh eyes, session 45: count 3 within a second)
    for (int i = 0; i < 3; i++) {
      int n = i;
      world
          .client
          .resources(dev.ironcore.maintenance.api.capi.CapiMachine.class)
          .inNamespace(world.ns)
          .withName("node-h")
          .edit(
              m -> {
                m.getMetadata().getLabels().put("touched", "t" + n);
                return m;
              });
      sleep(700);
    }
    sleep(2000); // past the recorder's hold of background Events
    assertThat(events("node-h", "DrainHookRemoved"))
        .singleElement()
        .satisfies(w -> assertThat(w.getCount()).isIn(null, 1));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A pool with Machine {@code vm} and CAPI Machine {@code node} on it, hook and finalizer on. */
  private void poolWithOneMachineAndHookedCapiMachine(String pool, String vm, String node) {
    world.createPool(pool, List.of());
    world.createMachine(vm, pool);
    world.createCapiMachine(node, pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine(node)));
  }

  /** A webhook URL nothing listens on (port 1): the API server's call is refused at once. */
  private static final String UNREACHABLE = "https://127.0.0.1:1/validate";

  /**
   * A ValidatingAdmissionPolicy {@code name} with its Deny binding: an UPDATE of {@code group}'s
   * {@code resource} passes only where the CEL {@code expression} holds, else it is refused with
   * {@code message}.
   */
  private void denyUpdates(
      String name, String group, String resource, String expression, String message) {
    String yaml =
        """
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata: {name: %1$s}
            spec:
              failurePolicy: Fail
              matchConstraints:
                resourceRules:
                - apiGroups: [%2$s]
                  apiVersions: ["*"]
                  operations: [UPDATE]
                  resources: [%3$s]
              validations:
              - expression: >-
                  %4$s
                message: %5$s
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicyBinding
            metadata: {name: %1$s}
            spec:
              policyName: %1$s
              validationActions: [Deny]
            """
            .formatted(name, group, resource, expression, message);
    world.cp.kubectlTool().runWithInput(yaml, "apply", "-f", "-").orThrow();
  }

  private void deletePolicy(String name) {
    world
        .cp
        .kubectl(
            "delete",
            "validatingadmissionpolicybindings,validatingadmissionpolicies",
            name,
            "--ignore-not-found")
        .orThrow();
  }

  private boolean maintenanceTainted(String pool) {
    MachinePool p = world.pool(pool);
    return p != null
        && p.getSpec() != null
        && p.getSpec().taintsOrEmpty().stream()
            .anyMatch(t -> Names.MAINTENANCE_TAINT_KEY.equals(t.getKey()));
  }

  /**
   * An admission webhook the API server cannot reach (a configuration pointing at a closed port, as
   * with a webhook server that is down) makes the drain's taint write fail with 500: a {@code
   * DrainWriteFailed} Warning on the CAPI Machine names the write and the API server's answer; once
   * the webhook is out of the way the drain goes on by itself.
   */
  @Test
  void aWriteTheApiServerFailsIsAWarningNamingItAndTheDrainGoesOnAfterwards() {
    String pool = world.poolName("unreachable");
    poolWithOneMachineAndHookedCapiMachine(pool, "vm-u", "node-u");
    String name = "e2e-unreachable-" + world.ns;
    try {
      world.createPoolWebhook(name, pool, "unreachable", "machinepools", UNREACHABLE, 2);
      world.deleteCapiMachine("node-u");
      // the controller's loops send a request once: the first 500 fails the pass
      ControllerWorld.processStarts()
          .untilAsserted(
              () ->
                  assertThat(events("node-u", "DrainWriteFailed"))
                      .isNotEmpty()
                      .allSatisfy(
                          e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getMessage())
                                .startsWith(
                                    "pool "
                                        + pool
                                        + ": adding the maintenance taints failed: PATCH ")
                                .contains(" answered 500: ")
                                .contains("failed calling webhook \"unreachable.e2e.ironcore.dev\"")
                                .endsWith("; retrying");
                          }));
      assertThat(maintenanceTainted(pool)).isFalse();
      // fresh eyes (session 38): the pool showed no Maintenance condition meanwhile; and past
      // --drain-timeout (1 s here) such a drain is stuck like a blocked one (session 39: it stayed
      // Draining for good, unseen by the drains-stuck gauge and its alert)
      String failing =
          "adding the maintenance taints failed, retrying (the DrainWriteFailed events of CAPI"
              + " Machine "
              + world.ns
              + "/node-u say why); nothing is evicted until they are on, and the pre-drain hook is"
              + " held";
      eventually()
          .untilAsserted(
              () ->
                  assertThat(maintenance(pool))
                      .isNotNull()
                      .satisfies(
                          c -> {
                            assertThat(c.getReason()).isEqualTo("DrainStuck");
                            assertThat(c.getMessage())
                                .startsWith(
                                    "drain of pool "
                                        + pool
                                        + " has held the pre-drain hook longer than"
                                        + " --drain-timeout=1s (CAPI Machine deleted at ")
                                .endsWith("; the hook is kept; " + failing);
                          }));
      assertThat(events("node-u", "DrainStuck"))
          .singleElement()
          .satisfies(e -> assertThat(e.getMessage()).endsWith(failing));
      assertThat(scrape())
          .as("counted for alerting")
          .containsPattern("(?m)^ironcore_maintenance_drain_write_failures_total [1-9]");
    } finally {
      world
          .cp
          .kubectl("delete", "validatingwebhookconfigurations", name, "--ignore-not-found")
          .orThrow();
    }
    eventually().until(() -> maintenanceTainted(pool));
  }

  /**
   * A ValidatingAdmissionPolicy that refuses any change of the pool's spec answers the taint write
   * with a 422 that is no stale read: a {@code DrainWriteFailed} Warning names the policy, the
   * failure is counted, and the drain goes on once the policy is gone.
   */
  @Test
  void aTaintWriteAnAdmissionPolicyRefusesIsAWarningNamingThePolicy() {
    String pool = world.poolName("locked");
    poolWithOneMachineAndHookedCapiMachine(pool, "vm-l", "node-l");
    String name = "e2e-lock-" + world.ns;

    try {
      denyUpdates(
          name,
          "compute.ironcore.dev",
          "machinepools",
          "object.metadata.name != '" + pool + "' || object.spec == oldObject.spec",
          "pool spec is locked");
      eventually()
          .until(
              () ->
                  !world
                      .cp
                      .kubectl(
                          "patch",
                          "machinepools.compute.ironcore.dev",
                          pool,
                          "--dry-run=server",
                          "--type=merge",
                          "-p",
                          "{\"spec\":{\"taints\":[{\"key\":\"x\",\"effect\":\"NoSchedule\"}]}}")
                      .ok());
      world.deleteCapiMachine("node-l");
      ControllerWorld.processStarts()
          .untilAsserted(
              () ->
                  assertThat(events("node-l", "DrainWriteFailed"))
                      .isNotEmpty()
                      .allSatisfy(
                          e ->
                              assertThat(e.getMessage())
                                  .startsWith(
                                      "pool "
                                          + pool
                                          + ": adding the maintenance taints failed: PATCH ")
                                  .contains(" answered 422: ")
                                  .contains("ValidatingAdmissionPolicy '" + name + "'")
                                  .contains("pool spec is locked")));
      assertThat(maintenanceTainted(pool)).isFalse();
      assertThat(scrape())
          .containsPattern("(?m)^ironcore_maintenance_drain_write_failures_total [1-9]");
    } finally {
      deletePolicy(name);
    }
    eventually().until(() -> maintenanceTainted(pool));
  }

  /**
   * Fresh eyes (session 38): a pre-drain hook removal that an admission check refuses (here a
   * ValidatingAdmissionPolicy keeping the hook on) recorded a new {@code DrainCompleted} ("drained
   * in 13s", "in 23s", ...) on every retry while the hook stayed, and the pool's condition kept
   * naming the Machine it had waited for, gone by then. Now the announcement is on record once, and
   * the condition says that the hook's removal fails; once the policy is gone the drain completes.
   */
  @Test
  void aHookRemovalThatIsRefusedIsShownOnThePoolAndAnnouncedOnce() {
    String pool = world.poolName("hook-kept");
    poolWithOneMachineAndHookedCapiMachine(pool, "vm-k", "node-k");
    String name = "e2e-keep-hook-" + world.ns;

    String failing =
        "no bound Machine blocks the maintenance taint; removing the pre-drain hook from CAPI"
            + " Machine "
            + world.ns
            + "/node-k failed, retrying (its DrainWriteFailed events say why)";
    try {
      denyUpdates(
          name,
          "cluster.x-k8s.io",
          "machines",
          "object.metadata.namespace != '"
              + world.ns
              + "' || object.metadata.name != 'node-k' || (has(object.metadata.annotations) && '"
              + Names.PRE_DRAIN_HOOK_ANNOTATION
              + "' in object.metadata.annotations)",
          "the pre-drain hook stays");
      eventually()
          .until(
              () ->
                  !world
                      .cp
                      .kubectl(
                          "annotate",
                          "machines.cluster.x-k8s.io",
                          "-n",
                          world.ns,
                          "node-k",
                          Names.PRE_DRAIN_HOOK_ANNOTATION + "-",
                          "--dry-run=server")
                      .ok());
      world.deleteCapiMachine("node-k");
      eventually().until(() -> maintenanceTainted(pool));
      world.poolletReleases("vm-k");
      ControllerWorld.processStarts()
          .untilAsserted(
              () -> {
                assertThat(events("node-k", "DrainWriteFailed"))
                    .singleElement()
                    .satisfies(
                        e -> {
                          assertThat(e.getMessage())
                              .startsWith("pool " + pool + ": removing the pre-drain hook failed")
                              .contains("the pre-drain hook stays");
                          assertThat(e.getCount()).as("retried").isGreaterThanOrEqualTo(3);
                        });
                // held past --drain-timeout (1 s here) before and while the removal fails
                Condition c = maintenance(pool);
                assertThat(c.getReason()).isEqualTo("DrainStuck");
                assertThat(c.getMessage()).endsWith("; the hook is kept; " + failing);
              });
      assertThat(hasHook(world.capiMachine("node-k"))).isTrue();
      assertThat(events("node-k", "DrainCompleted"))
          .as("announced once, not once per retry")
          .singleElement()
          .satisfies(e -> assertThat(e.getCount()).isOne());
    } finally {
      deletePolicy(name);
    }
    eventually().until(() -> !hasHook(world.capiMachine("node-k")));
    eventually().until(() -> "Drained".equals(maintenance(pool).getReason()));
    assertThat(events("node-k", "DrainCompleted")).hasSize(1);
  }

  /**
   * The taint write succeeds but every write of the pool's status (its Maintenance condition) fails
   * with 500: the {@code DrainWriteFailed} Warning names the condition write, not the step before
   * it.
   */
  @Test
  void aFailedConditionWriteAfterTheTaintsIsNamedAsTheConditionWrite() {
    String pool = world.poolName("status-unreachable");
    poolWithOneMachineAndHookedCapiMachine(pool, "vm-s", "node-s");
    String name = "e2e-status-unreachable-" + world.ns;
    try {
      world.createPoolWebhook(name, pool, "unreachable", "machinepools/status", UNREACHABLE, 2);
      world.deleteCapiMachine("node-s");
      ControllerWorld.processStarts()
          .untilAsserted(
              () ->
                  assertThat(events("node-s", "DrainWriteFailed"))
                      .isNotEmpty()
                      .allSatisfy(
                          e ->
                              assertThat(e.getMessage())
                                  .startsWith(
                                      "pool "
                                          + pool
                                          + ": writing the pool's Maintenance condition failed:"
                                          + " PATCH ")
                                  .contains(pool + "/status answered 500: ")));
      assertThat(maintenanceTainted(pool)).as("the step's own write landed").isTrue();
    } finally {
      world
          .cp
          .kubectl("delete", "validatingwebhookconfigurations", name, "--ignore-not-found")
          .orThrow();
    }
  }
}

package dev.ironcore.maintenance.controller.drain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DrainBudgetTest {
  private static final Instant T = Instant.parse("2026-11-29T08:00:00Z");

  private static DrainSlot waiting(String key, long second, String pool) {
    return new DrainSlot(key, T.plusSeconds(second), pool, false, true);
  }

  private static DrainSlot inProgress(String key, long second, String pool) {
    return new DrainSlot(key, T.plusSeconds(second), pool, true, false);
  }

  @Test
  void unlimitedAdmitsEveryDrain() {
    var fleet = List.of(inProgress("ns/a", 0, "a"), waiting("ns/b", 1, "b"));
    assertThat(DrainBudget.check("ns/b", fleet, 0).admitted()).isTrue();
    assertThat(DrainBudget.queued(fleet, 0)).isZero();
  }

  @Test
  void firstDeletedFirstServedWithTheNameAsTieBreak() {
    var fleet = List.of(waiting("ns/c", 1, "c"), waiting("ns/b", 0, "b"), waiting("ns/a", 1, "a"));
    assertThat(DrainBudget.check("ns/b", fleet, 1).admitted()).isTrue();
    assertThat(DrainBudget.check("ns/a", fleet, 1))
        .isEqualTo(new DrainBudget.Verdict(false, 2, List.of()));
    assertThat(DrainBudget.check("ns/c", fleet, 1).position()).isEqualTo(3);
    assertThat(DrainBudget.check("ns/a", fleet, 2).admitted()).isTrue();
    assertThat(DrainBudget.check("ns/c", fleet, 2).admitted()).isFalse();
    assertThat(DrainBudget.queued(fleet, 1)).isEqualTo(2);
  }

  @Test
  void aFullBudgetAdmitsNoneUntilADrainFinishes() {
    var full = List.of(inProgress("ns/a", 0, "a"), waiting("ns/b", 1, "b"));
    assertThat(DrainBudget.check("ns/b", full, 1))
        .isEqualTo(new DrainBudget.Verdict(false, 1, List.of("a")));
    assertThat(DrainBudget.check("ns/b", List.of(waiting("ns/b", 1, "b")), 1).admitted()).isTrue();
  }

  /**
   * Two deleting CAPI Machines naming one pool are one drain: one position, admitted together,
   * counted once (fresh eyes, session 45: each wrote its own position to the pool's condition, 50
   * to 70 writes a second while they waited).
   */
  @Test
  void twoDrainsOfOnePoolShareItsPlaceInTheQueue() {
    var fleet =
        List.of(
            inProgress("ns/u", 0, "u"),
            waiting("ns/s", 1, "s"),
            waiting("ns/t", 2, "t"),
            waiting("ns/s2", 3, "s"));
    assertThat(DrainBudget.check("ns/s", fleet, 1))
        .isEqualTo(new DrainBudget.Verdict(false, 1, List.of("u")));
    assertThat(DrainBudget.check("ns/s2", fleet, 1))
        .isEqualTo(new DrainBudget.Verdict(false, 1, List.of("u")));
    assertThat(DrainBudget.check("ns/t", fleet, 1).position()).isEqualTo(2);
    assertThat(DrainBudget.queued(fleet, 1)).as("pools waiting").isEqualTo(2);
    assertThat(DrainBudget.check("ns/s2", fleet, 2).admitted()).isTrue();
    assertThat(DrainBudget.check("ns/t", fleet, 2).admitted()).isFalse();
  }

  /**
   * The queue behind a drain held past --drain-timeout says so (fresh eyes, session 45: "draining
   * pool-p1" alone, while pool-p1 was DrainStuck).
   */
  @Test
  void theQueueNamesAStuckDrainAsSuch() {
    var fleet =
        List.of(
            new DrainSlot("ns/p1", T, "p1", true, false, false, true, true),
            inProgress("ns/p0", 0, "p0"),
            waiting("ns/p2", 1, "p2"));
    assertThat(DrainBudget.check("ns/p2", fleet, 2))
        .isEqualTo(new DrainBudget.Verdict(false, 1, List.of("p0", "p1 (DrainStuck)")));
  }

  /**
   * A drain that released its hook keeps its slot while Cluster API drains and deletes the node;
   * the queue behind it says so and names the hooks of others that hold the CAPI Machine (fresh
   * eyes, session 47: "draining pool-6" for a pool drained long before, with another team's
   * pre-drain hook on its CAPI Machine).
   */
  @Test
  void theQueueNamesADrainedPoolAndTheHooksThatHoldItsCapiMachine() {
    var drained =
        dev.ironcore.maintenance.controller.Fixtures.capiMachine(
            "pool-6",
            true,
            List.of(
                dev.ironcore.maintenance.api.Names.CAPI_MACHINE_FINALIZER,
                dev.ironcore.maintenance.api.Names.CLEANUP_FINALIZER),
            java.util.Map.of(
                "pre-drain.delete.hook.machine.cluster.x-k8s.io/other-team", "other",
                "pre-terminate.delete.hook.machine.cluster.x-k8s.io/volumes", "csi",
                "example.com/note", "x"));
    drained.getMetadata().setName("node-6");
    var draining = dev.ironcore.maintenance.controller.Fixtures.marked("pool-5", true);
    draining.getMetadata().setName("node-5");
    var queued = dev.ironcore.maintenance.controller.Fixtures.marked("pool-7", true);
    queued.getMetadata().setName("node-7");
    queued.getMetadata().setDeletionTimestamp("2026-11-29T08:00:05Z");
    var fleet =
        DrainFleet.of(
            List.of(drained, draining, queued),
            name ->
                name.equals("pool-7")
                    ? dev.ironcore.maintenance.controller.Fixtures.pool(name)
                    : dev.ironcore.maintenance.controller.Fixtures.pool(
                        name, maintenance("NoExecute", "2026-11-29T08:00:00Z")),
            labels -> true,
            T.plusSeconds(60));
    String drainedSlot =
        "pool-6 (drained, CAPI Machine ns/node-6 still being deleted, held by"
            + " pre-drain.delete.hook.machine.cluster.x-k8s.io/other-team,"
            + " pre-terminate.delete.hook.machine.cluster.x-k8s.io/volumes)";
    assertThat(DrainBudget.check("ns/node-7", fleet, 2))
        .isEqualTo(new DrainBudget.Verdict(false, 1, List.of("pool-5"), List.of(drainedSlot)));
    assertThat(DrainBudget.check("ns/node-7", fleet, 3).admitted()).isTrue();
    var message =
        DrainDecision.decide(
                new DrainInput(
                    queued,
                    true,
                    dev.ironcore.maintenance.controller.Fixtures.pool("pool-7"),
                    List.of(),
                    fleet,
                    List.of()),
                new DrainPolicy(java.time.Duration.ofMinutes(30), 2),
                java.time.Clock.fixed(T.plusSeconds(60), java.time.ZoneOffset.UTC))
            .condition()
            .message();
    assertThat(message)
        .isEqualTo(
            "waiting for a free drain slot (--max-concurrent-drains=2): draining pool-5; "
                + drainedSlot
                + "; position 1 in the queue");
  }

  @Test
  void aDrainWhosePoolIsAlreadyTaintedKeepsItsSlotEvenOverBudget() {
    var over = List.of(inProgress("ns/a", 0, "a"), inProgress("ns/b", 1, "b"));
    assertThat(DrainBudget.check("ns/b", over, 1).admitted()).isTrue();
  }

  /**
   * A drain held because a live CAPI Machine shares its pool (untainted) does not wait for a slot:
   * with --max-concurrent-drains=1 it kept every later drain queued (fresh eyes, session 33).
   */
  @Test
  void aDrainHeldOnASharedPoolTakesNoPlaceInTheQueue() {
    var shared = dev.ironcore.maintenance.controller.Fixtures.marked("pa", true);
    shared.getMetadata().setName("node-a");
    var live = dev.ironcore.maintenance.controller.Fixtures.marked("pa", false);
    live.getMetadata().setName("node-x");
    var later = dev.ironcore.maintenance.controller.Fixtures.marked("pb", true);
    later.getMetadata().setName("node-b");
    later.getMetadata().setDeletionTimestamp("2026-11-29T08:00:05Z");
    var fleet =
        DrainFleet.of(
            List.of(shared, live, later),
            name -> dev.ironcore.maintenance.controller.Fixtures.pool(name),
            labels -> true,
            T);
    assertThat(fleet).extracting(DrainSlot::key).containsExactly("ns/node-a", "ns/node-b");
    assertThat(fleet.get(0).waiting()).isFalse();
    assertThat(fleet.get(0).held()).isTrue();
    assertThat(DrainBudget.check("ns/node-b", fleet, 1).admitted()).isTrue();
    assertThat(DrainBudget.queued(fleet, 1)).isZero();
    assertThat(DrainGauges.oldestAgeSeconds(fleet, java.time.Instant.parse("2026-11-29T08:01:00Z")))
        .as("a held drain is an unfinished one")
        .isEqualTo(60.0);
    // the pool already tainted (by this drain before the nodeRef was written, or by hand): the held
    // drain holds no slot either (fresh eyes: it kept the only one, and the queue behind it)
    var tainted =
        DrainFleet.of(
            List.of(shared, live, later),
            name ->
                dev.ironcore.maintenance.controller.Fixtures.pool(
                    name,
                    DrainDecision.MAINTENANCE_TAINTS.toArray(
                        new dev.ironcore.maintenance.api.compute.Taint[0])),
            labels -> true,
            T);
    assertThat(tainted.get(0).inProgress()).isFalse();
    assertThat(DrainBudget.check("ns/node-b", tainted, 1).admitted()).isTrue();
  }

  private static dev.ironcore.maintenance.api.compute.Taint maintenance(
      String effect, String timeAdded) {
    var t =
        new dev.ironcore.maintenance.api.compute.Taint(
            dev.ironcore.maintenance.api.Names.MAINTENANCE_TAINT_KEY, null, effect);
    t.setTimeAdded(timeAdded);
    return t;
  }

  /**
   * Which maintenance taints take a slot: this drain's NoExecute taint (added at or after the
   * deletion at 08:00:00, or up to 5 s before it by a webhook server whose clock is behind the API
   * server's, or without timeAdded as on a v1alpha1-only API server) does; one added more than 5 s
   * before the deletion or in the future (by hand) neither takes nor waits for one, as its Machines
   * are evicted whatever the drain does; a pool cordoned with :NoSchedule alone waits. Fresh eyes
   * (session 35): with --max-concurrent-drains=1 a pool tainted by hand and then deleted started at
   * once past the limit, and a drain deleted earlier waited behind it.
   */
  @Test
  void onlyThisDrainsNoExecuteTaintTakesASlot() {
    Instant now = Instant.parse("2026-11-29T08:05:00Z");
    var earlier = dev.ironcore.maintenance.controller.Fixtures.marked("pool-q", true);
    earlier.getMetadata().setName("node-q");
    earlier.getMetadata().setDeletionTimestamp("2026-11-29T07:59:00Z");
    var capi = dev.ironcore.maintenance.controller.Fixtures.marked("pool-t", true);
    capi.getMetadata().setName("node-t");
    record Case(String name, dev.ironcore.maintenance.api.compute.Taint[] taints, String slot) {}
    for (Case c :
        List.of(
            new Case(
                "this drain's, at the deletion",
                new dev.ironcore.maintenance.api.compute.Taint[] {
                  maintenance("NoExecute", "2026-11-29T08:00:00Z"), maintenance("NoSchedule", null)
                },
                "in progress"),
            new Case(
                "no timeAdded (v1alpha1-only)",
                new dev.ironcore.maintenance.api.compute.Taint[] {maintenance("NoExecute", null)},
                "in progress"),
            new Case(
                "this drain's, stamped by a webhook server whose clock is 2 s behind",
                new dev.ironcore.maintenance.api.compute.Taint[] {
                  maintenance("NoExecute", "2026-11-29T07:59:58Z"), maintenance("NoSchedule", null)
                },
                "in progress"),
            new Case(
                "by hand, 6 s before the deletion",
                new dev.ironcore.maintenance.api.compute.Taint[] {
                  maintenance("NoExecute", "2026-11-29T07:59:54Z")
                },
                "neither"),
            new Case(
                "by hand, in the future",
                new dev.ironcore.maintenance.api.compute.Taint[] {
                  maintenance("NoExecute", "2030-01-01T00:00:00Z")
                },
                "neither"),
            new Case(
                ":NoSchedule alone",
                new dev.ironcore.maintenance.api.compute.Taint[] {maintenance("NoSchedule", null)},
                "waiting"))) {
      var fleet =
          DrainFleet.of(
              List.of(earlier, capi),
              name ->
                  name.equals("pool-t")
                      ? dev.ironcore.maintenance.controller.Fixtures.pool(name, c.taints())
                      : dev.ironcore.maintenance.controller.Fixtures.pool(name),
              labels -> true,
              now);
      DrainSlot t = fleet.get(1);
      assertThat(t.key()).isEqualTo("ns/node-t");
      String slot = t.inProgress() ? "in progress" : t.waiting() ? "waiting" : "neither";
      assertThat(slot).as(c.name()).isEqualTo(c.slot());
      boolean tDrains = !t.waiting() || DrainBudget.check("ns/node-t", fleet, 1).admitted();
      assertThat(tDrains).as(c.name() + ": node-t drains").isEqualTo(!slot.equals("waiting"));
      assertThat(DrainBudget.check("ns/node-q", fleet, 1).admitted())
          .as(c.name() + ": the drain deleted earlier starts")
          .isEqualTo(!slot.equals("in progress"));
    }
  }

  /**
   * The oldest drain's age counts drains that still hold their pre-drain hook, a pool tainted
   * before the deletion too, and not a drain whose hook is released while CAPI drains the node
   * (fresh eyes, session 44: the IronCoreMaintenanceDrainTooOld alert fired for a node CAPI took
   * long over, and never for a drain on a pool tainted by hand before).
   */
  @Test
  void theOldestDrainsAgeCountsDrainsHoldingTheirHook() {
    var released =
        dev.ironcore.maintenance.controller.Fixtures.capiMachine(
            "pool-r",
            true,
            List.of(
                dev.ironcore.maintenance.api.Names.CAPI_MACHINE_FINALIZER,
                dev.ironcore.maintenance.api.Names.CLEANUP_FINALIZER),
            java.util.Map.of());
    released.getMetadata().setName("node-r");
    var byHand = dev.ironcore.maintenance.controller.Fixtures.marked("pool-h", true);
    byHand.getMetadata().setName("node-h");
    byHand.getMetadata().setDeletionTimestamp("2026-11-29T08:00:30Z");
    var pools =
        java.util.Map.of(
            "pool-r",
            dev.ironcore.maintenance.controller.Fixtures.pool(
                "pool-r", maintenance("NoExecute", "2026-11-29T08:00:01Z")),
            "pool-h",
            dev.ironcore.maintenance.controller.Fixtures.pool(
                "pool-h", maintenance("NoExecute", "2026-11-29T07:00:00Z")));
    Instant now = Instant.parse("2026-11-29T08:01:00Z");
    var fleet = DrainFleet.of(List.of(released, byHand), pools::get, labels -> true, now);
    assertThat(fleet).extracting(DrainSlot::key).containsExactly("ns/node-r", "ns/node-h");
    assertThat(fleet.get(0).inProgress())
        .as("released: in progress until its pool is gone")
        .isTrue();
    assertThat(fleet.get(1).inProgress() || fleet.get(1).waiting()).isFalse();
    assertThat(DrainGauges.oldestAgeSeconds(fleet, now)).isEqualTo(30.0);
    assertThat(DrainGauges.oldestAgeSeconds(fleet.subList(0, 1), now)).isZero();
  }

  @Test
  void aDrainMissingFromTheFleetWaitsBehindEveryone() {
    assertThat(DrainBudget.check("ns/x", List.of(waiting("ns/b", 1, "b")), 1).admitted()).isFalse();
    assertThat(DrainBudget.check("ns/x", List.of(), 1).admitted()).isTrue();
  }
}

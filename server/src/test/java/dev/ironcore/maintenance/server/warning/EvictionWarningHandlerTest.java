package dev.ironcore.maintenance.server.warning;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machinePool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EvictionWarningHandlerTest {
  private static final AdmissionHandler ALLOW = r -> AdmissionResponse.allowed();

  private static Machine machine(String name, boolean deleting, Toleration... tolerations) {
    Machine m = new Machine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace("ns")
            .withDeletionTimestamp(deleting ? "2026-11-29T08:00:00Z" : null)
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachinePoolRef(new LocalRef("pool-a"));
    spec.setTolerations(List.of(tolerations));
    m.setSpec(spec);
    return m;
  }

  private static final List<Machine> BOUND =
      List.of(
          machine("vm-1", false),
          machine("vm-2", false),
          machine("vm-gone", true),
          machine("vm-ok", false, new Toleration("k", "Exists", null, "NoExecute")));

  private static String pool(String taints) {
    return "{\"metadata\":{\"name\":\"pool-a\"},\"spec\":{\"taints\":" + taints + "}}";
  }

  private static AdmissionResponse update(String oldTaints, String newTaints, BoundMachines bound) {
    return new EvictionWarningHandler(ALLOW, bound)
        .handle(machinePool(Operation.UPDATE, json(pool(newTaints)), json(pool(oldTaints))));
  }

  @Test
  void anAddedNoExecuteTaintWarnsWithTheNumberOfLiveMachinesItEvicts() {
    assertThat(
            update(
                    "[]",
                    "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\"}]",
                    p -> Optional.of(BOUND))
                .warnings())
        .containsExactly("2 bound Machines do not tolerate k=v:NoExecute and will be evicted");
    assertThat(
            update(
                    "[]",
                    "[{\"key\":\"x\",\"effect\":\"NoExecute\"}]",
                    p -> Optional.of(List.of(machine("one", false))))
                .warnings())
        .containsExactly("1 bound Machine does not tolerate x:NoExecute and will be evicted");
  }

  private static Toleration forSeconds(Long seconds) {
    Toleration t = new Toleration("k", "Exists", null, "NoExecute");
    t.setTolerationSeconds(seconds);
    return t;
  }

  @Test
  void machinesTolerantForTheirTolerationSecondsOnlyGetTheirOwnWarning() {
    String t = "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\"}]";
    List<Machine> bound =
        List.of(
            machine("vm-none", false),
            machine("vm-0", false, forSeconds(0L)),
            machine("vm-30", false, forSeconds(30L)),
            machine("vm-600", false, forSeconds(600L)),
            // the first matching toleration counts, as in Kubernetes' taint manager
            machine("vm-first", false, forSeconds(900L), forSeconds(60L)),
            machine("vm-first-timed", false, forSeconds(30L), forSeconds(null)),
            machine("vm-forever", false, forSeconds(null), forSeconds(30L)),
            machine("vm-deleting", true, forSeconds(30L)));
    assertThat(update("[]", t, p -> Optional.of(bound)).warnings())
        .containsExactly(
            "2 bound Machines do not tolerate k=v:NoExecute or tolerate it for 0 s"
                + " (tolerationSeconds 0 or less: 1 of them) and will be evicted",
            "4 bound Machines tolerate k=v:NoExecute for 30 to 900 s only (tolerationSeconds) and"
                + " will be evicted then");
    assertThat(
            update("[]", t, p -> Optional.of(List.of(machine("vm-30", false, forSeconds(30L)))))
                .warnings())
        .containsExactly(
            "1 bound Machine tolerates k=v:NoExecute for 30 s only (tolerationSeconds) and will"
                + " be evicted then");
  }

  /** The warnings of an UPDATE adding {@code taints} to a pool without any, at {@code now}. */
  private static List<String> addedAt(java.time.Instant now, String taints, List<Machine> bound) {
    return new EvictionWarningHandler(
            ALLOW, p -> Optional.of(bound), java.time.Clock.fixed(now, java.time.ZoneOffset.UTC))
        .handle(machinePool(Operation.UPDATE, json(pool(taints)), json(pool("[]"))))
        .warnings();
  }

  @Test
  void theSecondsCountFromTheTaintsTimeAdded() {
    // fresh eyes: a taint written with a timeAdded 10 minutes back was announced as tolerated
    // "for 300 s", and the Machine was evicted at once (the eviction loop counts from timeAdded)
    java.time.Instant now = java.time.Instant.parse("2026-12-06T02:00:00Z");
    String t =
        "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\","
            + "\"timeAdded\":\"2026-12-06T01:50:00Z\"}]";
    List<Machine> bound =
        List.of(
            machine("vm-300", false, forSeconds(300L)),
            machine("vm-900", false, forSeconds(900L)),
            machine("vm-none", false));
    assertThat(addedAt(now, t, bound))
        .containsExactly(
            "1 bound Machine does not tolerate k=v:NoExecute and will be evicted",
            "1 bound Machine tolerates k=v:NoExecute for less than the 600 s since its timeAdded"
                + " (tolerationSeconds) and will be evicted now",
            "1 bound Machine tolerates k=v:NoExecute for 300 s only (tolerationSeconds) and will"
                + " be evicted then");
  }

  @Test
  void aTimeAddedWithinASecondCountsAsNow() {
    // the mutating webhook stamps timeAdded (seconds) in the same write; a second boundary
    // between it and this webhook must not turn "for 30 s" into "for 29 s"
    java.time.Instant now = java.time.Instant.parse("2026-12-06T02:00:01.100Z");
    for (String added : List.of("2026-12-06T02:00:00Z", "2026-12-06T02:00:02Z")) {
      String t =
          "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\",\"timeAdded\":\""
              + added
              + "\"}]";
      assertThat(addedAt(now, t, List.of(machine("vm-30", false, forSeconds(30L)))))
          .as(added)
          .containsExactly(
              "1 bound Machine tolerates k=v:NoExecute for 30 s only (tolerationSeconds) and will"
                  + " be evicted then");
    }
  }

  @Test
  void aTimeAddedAheadIsWaitedForFirst() {
    // fresh eyes: a taint with a timeAdded 100 s ahead was announced as tolerated "for 30 to 600
    // s", while the eviction loop evicts 130 to 700 s later (its deadlines count from timeAdded)
    java.time.Instant now = java.time.Instant.parse("2026-12-06T02:00:00Z");
    String t =
        "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\","
            + "\"timeAdded\":\"2026-12-06T02:01:40Z\"}]";
    List<Machine> bound =
        List.of(
            machine("vm-30", false, forSeconds(30L)),
            machine("vm-600", false, forSeconds(600L)),
            machine("vm-0", false, forSeconds(0L)),
            machine("vm-max", false, forSeconds(Long.MAX_VALUE)),
            machine("vm-none", false));
    assertThat(addedAt(now, t, bound))
        .containsExactly(
            // vm-none and vm-0 (tolerationSeconds 0: at once, whatever the timeAdded, as the
            // eviction loop does; fresh eyes, session 40: it was said to wait 100 s)
            "2 bound Machines do not tolerate k=v:NoExecute or tolerate it for 0 s"
                + " (tolerationSeconds 0 or less: 1 of them) and will be evicted",
            "3 bound Machines tolerate k=v:NoExecute for 130 to 9223372036854775807 s only"
                + " (tolerationSeconds, counted from its timeAdded 100 s from now) and will be"
                + " evicted then");
  }

  /** Fresh eyes (session 40): Machines tolerating a taint for 0 s were said not to tolerate it. */
  @Test
  void machinesToleratingForNoTimeAreNotSaidNotToTolerate() {
    java.time.Instant now = java.time.Instant.parse("2026-12-06T02:00:00Z");
    String t = "[{\"key\":\"k\",\"effect\":\"NoExecute\"}]";
    assertThat(
            addedAt(
                now,
                t,
                List.of(
                    machine("vm-0", false, forSeconds(0L)),
                    machine("vm-neg", false, forSeconds(-5L)))))
        .containsExactly(
            "2 bound Machines tolerate k:NoExecute for 0 s (tolerationSeconds 0 or less) and will"
                + " be evicted");
    assertThat(addedAt(now, t, List.of(machine("vm-0", false, forSeconds(0L)))))
        .containsExactly(
            "1 bound Machine tolerates k:NoExecute for 0 s (tolerationSeconds 0 or less) and will"
                + " be evicted");
  }

  @Test
  void noWarningForTaintsAlreadyThereNoScheduleOrNobodyEvicted() {
    String t = "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\"}]";
    assertThat(update(t, t, p -> Optional.of(BOUND)).warnings()).isEmpty();
    assertThat(
            update("[]", "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]", p -> Optional.of(BOUND))
                .warnings())
        .isEmpty();
    assertThat(update("[]", t, p -> Optional.of(List.of())).warnings()).isEmpty();
  }

  /** The bound Machines are an API request now: asked for only when a NoExecute taint is added. */
  @Test
  void theBoundMachinesAreReadOnlyForAnAddedNoExecuteTaint() {
    List<String> asked = new java.util.ArrayList<>();
    BoundMachines counting =
        p -> {
          asked.add(p);
          return Optional.of(BOUND);
        };
    String t = "[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\"}]";
    update(t, t, counting);
    update("[]", "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]", counting);
    update(t, "[]", counting);
    assertThat(asked).as("nothing added that evicts").isEmpty();
    assertThat(update("[]", t, counting).warnings()).isNotEmpty();
    assertThat(asked).hasSize(1);
  }

  @Test
  void anUnsyncedCacheOrAFailingLookupGivesNoWarningAndNeverDenies() {
    String t = "[{\"key\":\"k\",\"effect\":\"NoExecute\"}]";
    AdmissionResponse unsynced = update("[]", t, BoundMachines.NONE);
    assertThat(unsynced.isAllowed()).isTrue();
    assertThat(unsynced.warnings()).isEmpty();
    AdmissionResponse failing =
        update(
            "[]",
            t,
            p -> {
              throw new IllegalStateException("boom");
            });
    assertThat(failing.isAllowed()).isTrue();
    assertThat(failing.warnings()).isEmpty();
    // fabric8 reflects over its operation classes on a LIST: a model class missing from the class
    // path surfaces there, as an Error
    AdmissionResponse unlinked =
        update(
            "[]",
            t,
            p -> {
              throw new NoClassDefFoundError(
                  "io/fabric8/kubernetes/api/model/autoscaling/v1/Scale");
            });
    assertThat(unlinked.isAllowed()).isTrue();
    assertThat(unlinked.warnings()).isEmpty();
  }

  @Test
  void aDenialOfTheInnerHandlerStandsWithoutWarnings() {
    AdmissionResponse denied =
        new EvictionWarningHandler(r -> AdmissionResponse.denied("no"), p -> Optional.of(BOUND))
            .handle(
                machinePool(
                    Operation.CREATE,
                    json(pool("[{\"key\":\"k\",\"effect\":\"NoExecute\"}]")),
                    null));
    assertThat(denied.isAllowed()).isFalse();
    assertThat(denied.warnings()).isEmpty();
  }

  @Test
  void onCreateEveryNoExecuteTaintCounts() {
    assertThat(
            new EvictionWarningHandler(ALLOW, p -> Optional.of(BOUND))
                .handle(
                    machinePool(
                        Operation.CREATE,
                        json(pool("[{\"key\":\"z\",\"effect\":\"NoExecute\"}]")),
                        null))
                .warnings())
        .containsExactly("3 bound Machines do not tolerate z:NoExecute and will be evicted");
  }

  /**
   * A change that adds thousands of NoExecute taints gets 16 warnings and one line counting the
   * rest (each added taint is checked against every bound Machine's tolerations, and the API server
   * shows every warning); taints the old pool had are found by a set, not a search each.
   */
  @Test
  void manyAddedTaintsGetSixteenWarningsAndOneCountingTheRest() {
    StringBuilder old = new StringBuilder("[");
    StringBuilder updated = new StringBuilder("[");
    for (int i = 0; i < 20_000; i++) {
      String taint = "{\"key\":\"k" + i + "\",\"effect\":\"NoExecute\"}";
      old.append(i == 0 ? "" : ",").append(taint);
      updated.append(i == 0 ? "" : ",").append(taint);
    }
    for (int i = 0; i < 1_000; i++) {
      updated.append(",{\"key\":\"new").append(i).append("\",\"effect\":\"NoExecute\"}");
    }
    List<String> warnings =
        update(old.append("]").toString(), updated.append("]").toString(), p -> Optional.of(BOUND))
            .warnings();
    assertThat(warnings).hasSize(EvictionWarnings.MAX_WARNINGS + 1);
    assertThat(warnings.get(0))
        .isEqualTo("3 bound Machines do not tolerate new0:NoExecute and will be evicted");
    assertThat(warnings.get(EvictionWarnings.MAX_WARNINGS))
        .isEqualTo(
            "984 more added NoExecute taints were not checked for evictions (at most 16 warnings)");
  }
}

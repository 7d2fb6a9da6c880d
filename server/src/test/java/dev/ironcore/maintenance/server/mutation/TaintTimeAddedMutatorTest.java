package dev.ironcore.maintenance.server.mutation;

import static dev.ironcore.maintenance.server.admission.TestReviews.applyWirePatch;
import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TaintTimeAddedMutatorTest {
  private static final Instant NOW = Instant.parse("2026-11-30T16:00:00.789Z");
  private static final TaintTimeAddedMutator MUTATOR =
      new TaintTimeAddedMutator(Clock.fixed(NOW, ZoneOffset.UTC));

  private static JsonNode pool(String taints) {
    return json(
        "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'MachinePool','metadata':{'name':'p'},"
            + "'spec':{'providerID':'x','taints':"
            + taints
            + "}}");
  }

  private static AdmissionRequest request(String version, Operation op, JsonNode o, JsonNode old) {
    return AdmissionRequest.fromReview(
        TestReviews.review(
            "uid-1", "compute.ironcore.dev", version, "MachinePool", "machinepools", op, o, old));
  }

  private static JsonNode mutate(Operation op, JsonNode object, JsonNode old) {
    return applyWirePatch(MUTATOR.handle(request("v1alpha2", op, object, old)), object);
  }

  @Test
  void newNoExecuteTaintsGetTheTimeInWholeSeconds() {
    JsonNode object =
        pool("[{'key':'a','effect':'NoSchedule'},{'key':'b','value':'v','effect':'NoExecute'}]");
    JsonNode patched = mutate(Operation.CREATE, object, null);
    assertThat(patched.at("/spec/taints/0").has("timeAdded")).isFalse();
    assertThat(patched.at("/spec/taints/1/timeAdded").asText()).isEqualTo("2026-11-30T16:00:00Z");
    assertThat(
            MUTATOR.handle(request("v1alpha2", Operation.CREATE, patched, null)).patch().isEmpty())
        .as("nothing left to do")
        .isTrue();
  }

  /**
   * A v1alpha1 write of 5,000 NoExecute taints fits without times; the times set here would push
   * its v1alpha1 annotations past 256 KiB, which the API server reported as its own 500 when it
   * converted the patched object back (fresh eyes). Refused here with the validating rule's 422.
   */
  @Test
  void timesThatWouldMakeTheV1alpha1AnnotationsTooLongAreRefusedNotSet() {
    JsonNode object = pool(noExecuteTaints(5_000, false));
    AdmissionResponse refused = MUTATOR.handle(request("v1alpha2", Operation.CREATE, object, null));
    assertThat(refused.isAllowed()).isFalse();
    assertThat(refused.code()).isEqualTo(422);
    assertThat(refused.message())
        .startsWith(
            "MachinePool.compute.ironcore.dev \"p\" is invalid: spec.taints: Forbidden: in"
                + " v1alpha1, which IronCore's clients read, this object's annotations would total ")
        .contains("timeAdded");

    JsonNode stored = pool(noExecuteTaints(5_000, true));
    assertThat(MUTATOR.handle(request("v1alpha2", Operation.UPDATE, object, stored)).isAllowed())
        .as("a pool stored over the limit before keeps its times: its annotations do not grow")
        .isTrue();
    assertThat(
            MUTATOR
                .handle(
                    request("v1alpha2", Operation.CREATE, pool(noExecuteTaints(500, false)), null))
                .patch()
                .size())
        .isEqualTo(500);
  }

  private static String noExecuteTaints(int n, boolean timed) {
    StringBuilder taints = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      taints
          .append(i == 0 ? "" : ",")
          .append("{'key':'maintenance.example.com/k")
          .append(i)
          .append("','effect':'NoExecute'")
          .append(timed ? ",'timeAdded':'2026-01-01T00:00:00Z'}" : "}");
    }
    return taints.append("]").toString();
  }

  @Test
  void laterUpdatesKeepTheOldTimeEvenWhenTheClientDropsOrChangesIt() {
    JsonNode old = pool("[{'key':'b','effect':'NoExecute','timeAdded':'2026-01-01T00:00:00Z'}]");
    JsonNode dropped =
        pool("[{'key':'c','effect':'NoExecute'},{'key':'b','value':'','effect':'NoExecute'}]");
    JsonNode patched = mutate(Operation.UPDATE, dropped, old);
    assertThat(patched.at("/spec/taints/0/timeAdded").asText()).isEqualTo("2026-11-30T16:00:00Z");
    assertThat(patched.at("/spec/taints/1/timeAdded").asText()).isEqualTo("2026-01-01T00:00:00Z");
    JsonNode moved = pool("[{'key':'b','effect':'NoExecute','timeAdded':'2026-06-01T00:00:00Z'}]");
    assertThat(mutate(Operation.UPDATE, moved, old).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-01-01T00:00:00Z");
    // a changed time is said not to be taken (fresh eyes, session 46: "patched", nothing changed);
    // a dropped one comes back without a word (a v1alpha1 replace without the annotation)
    assertThat(MUTATOR.handle(request("v1alpha2", Operation.UPDATE, moved, old)).warnings())
        .containsExactly(
            "spec.taints[0] (b:NoExecute) timeAdded 2026-06-01T00:00:00Z is not taken: a taint"
                + " keeps the time it was added (remove the taint and add it again to restart"
                + " that time)");
    assertThat(MUTATOR.handle(request("v1alpha2", Operation.UPDATE, dropped, old)).warnings())
        .isEmpty();
    // a value that is no string is shown as written (fresh eyes: it showed empty)
    JsonNode odd = pool("[{'key':'b','effect':'NoExecute','timeAdded':{'a':1}}]");
    assertThat(MUTATOR.handle(request("v1alpha2", Operation.UPDATE, odd, old)).warnings())
        .singleElement()
        .asString()
        .startsWith("spec.taints[0] (b:NoExecute) timeAdded {\"a\":1} is not taken");
  }

  /**
   * Fresh eyes (session 42): a NoSchedule taint's stored timeAdded was lost by a v1alpha1 replace
   * without the v1alpha2-fields annotation. It gets none of its own, but keeps a stored one.
   */
  @Test
  void aNoScheduleTaintKeepsAStoredTimeButGetsNoneOfItsOwn() {
    JsonNode old =
        pool(
            "[{'key':'a','value':'v','effect':'NoSchedule','timeAdded':'2020-01-01T00:00:00Z'},"
                + "{'key':'b','effect':'NoSchedule'},"
                + "{'key':'c','effect':'NoSchedule','timeAdded':'yesterday'}]");
    JsonNode dropped =
        pool(
            "[{'key':'a','value':'v','effect':'NoSchedule'},{'key':'b','effect':'NoSchedule'},"
                + "{'key':'c','effect':'NoSchedule'},{'key':'d','effect':'NoSchedule'}]");
    JsonNode patched = mutate(Operation.UPDATE, dropped, old);
    assertThat(patched.at("/spec/taints/0/timeAdded").asText()).isEqualTo("2020-01-01T00:00:00Z");
    assertThat(patched.at("/spec/taints/1").has("timeAdded")).isFalse();
    assertThat(patched.at("/spec/taints/2").has("timeAdded")).as("not a date-time").isFalse();
    assertThat(patched.at("/spec/taints/3").has("timeAdded")).isFalse();
    JsonNode changed =
        pool("[{'key':'a','value':'v','effect':'NoSchedule','timeAdded':'2030-01-01T00:00:00Z'}]");
    assertThat(mutate(Operation.UPDATE, changed, old).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2020-01-01T00:00:00Z");
    JsonNode otherValue = pool("[{'key':'a','value':'w','effect':'NoSchedule'}]");
    assertThat(mutate(Operation.UPDATE, otherValue, old).at("/spec/taints/0").has("timeAdded"))
        .as("another taint")
        .isFalse();
  }

  @Test
  void aTaintWhoseValueChangedIsNew() {
    JsonNode old =
        pool("[{'key':'b','value':'1','effect':'NoExecute','timeAdded':'2026-01-01T00:00:00Z'}]");
    JsonNode changed = pool("[{'key':'b','value':'2','effect':'NoExecute'}]");
    assertThat(mutate(Operation.UPDATE, changed, old).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-11-30T16:00:00Z");
  }

  @Test
  void aStoredTimeThatIsNoDateTimeIsMendedNotKept() {
    JsonNode old = pool("[{'key':'b','effect':'NoExecute','timeAdded':'yesterday'}]");
    JsonNode replayed = pool("[{'key':'b','effect':'NoExecute','timeAdded':'yesterday'}]");
    assertThat(mutate(Operation.UPDATE, replayed, old).at("/spec/taints/0/timeAdded").asText())
        .as("the client sent the stored value back: the time of this write replaces it")
        .isEqualTo("2026-11-30T16:00:00Z");
    JsonNode dropped = pool("[{'key':'b','effect':'NoExecute'}]");
    assertThat(mutate(Operation.UPDATE, dropped, old).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-11-30T16:00:00Z");
    JsonNode fixed = pool("[{'key':'b','effect':'NoExecute','timeAdded':'2026-06-01T00:00:00Z'}]");
    assertThat(MUTATOR.handle(request("v1alpha2", Operation.UPDATE, fixed, old)).patch().isEmpty())
        .as("a client that sets a date-time itself keeps it")
        .isTrue();
    JsonNode number = pool("[{'key':'b','effect':'NoExecute','timeAdded':12345}]");
    assertThat(mutate(Operation.UPDATE, replayed, number).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-11-30T16:00:00Z");
  }

  @Test
  void aNewTaintWithItsOwnTimeKeepsItUnlessEarlierThanNow() {
    JsonNode later = pool("[{'key':'b','effect':'NoExecute','timeAdded':'2026-11-30T17:00:00Z'}]");
    AdmissionResponse kept = MUTATOR.handle(request("v1alpha2", Operation.CREATE, later, null));
    assertThat(kept.patch().isEmpty()).as("a later time delays the eviction: kept").isTrue();
    assertThat(kept.warnings()).isEmpty();
    JsonNode sameSecond =
        pool("[{'key':'b','effect':'NoExecute','timeAdded':'2026-11-30T16:00:00Z'}]");
    assertThat(
            MUTATOR
                .handle(request("v1alpha2", Operation.CREATE, sameSecond, null))
                .patch()
                .isEmpty())
        .isTrue();
    JsonNode earlier =
        pool("[{'key':'b','effect':'NoExecute','timeAdded':'2025-01-01T00:00:00Z'}]");
    AdmissionResponse set = MUTATOR.handle(request("v1alpha2", Operation.CREATE, earlier, null));
    assertThat(applyWirePatch(set, earlier).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-11-30T16:00:00Z");
    assertThat(set.warnings())
        .containsExactly(
            "spec.taints[0] (b:NoExecute) timeAdded 2025-01-01T00:00:00Z lies before this write,"
                + " so it is set to 2026-11-30T16:00:00Z: a NoExecute taint added now counts"
                + " tolerationSeconds from now (the time a removed taint had would evict"
                + " tolerating Machines at once)");
  }

  /**
   * Fresh eyes (session 40): a taint removed and added back with the {@code timeAdded} it had (a
   * manifest that carries it, as kubectl apply users copy it), or turned from NoSchedule back into
   * NoExecute with its old time, evicted Machines tolerating it for 120 s at once.
   */
  @Test
  void aTaintAddedBackWithTheTimeItHadCountsFromNow() {
    JsonNode removed = pool("[]");
    JsonNode back =
        pool("[{'key':'up','value':'v2','effect':'NoExecute','timeAdded':'2026-11-30T15:58:00Z'}]");
    AdmissionResponse readded =
        MUTATOR.handle(request("v1alpha2", Operation.UPDATE, back, removed));
    assertThat(applyWirePatch(readded, back).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-11-30T16:00:00Z");
    assertThat(readded.warnings()).hasSize(1);
    assertThat(readded.warnings().get(0))
        .as("named as the eviction warnings name it")
        .startsWith("spec.taints[0] (up=v2:NoExecute) timeAdded 2026-11-30T15:58:00Z lies before");
    JsonNode noSchedule =
        pool("[{'key':'e','effect':'NoSchedule','timeAdded':'2026-11-30T15:00:00Z'}]");
    JsonNode noExecute =
        pool("[{'key':'e','effect':'NoExecute','timeAdded':'2026-11-30T15:00:00Z'}]");
    assertThat(
            mutate(Operation.UPDATE, noExecute, noSchedule).at("/spec/taints/0/timeAdded").asText())
        .isEqualTo("2026-11-30T16:00:00Z");
    JsonNode many =
        pool(
            "[{'key':'a','effect':'NoExecute','timeAdded':'2026-11-30T15:00:00Z'},"
                + "{'key':'b','effect':'NoExecute','timeAdded':'2026-11-30T15:00:00Z'},"
                + "{'key':'c','effect':'NoExecute','timeAdded':'2026-11-30T15:00:00Z'},"
                + "{'key':'d','effect':'NoExecute','timeAdded':'2026-11-30T15:00:00Z'}]");
    assertThat(MUTATOR.handle(request("v1alpha2", Operation.UPDATE, many, removed)).warnings())
        .containsExactly(
            "4 taints new in this write carry an earlier timeAdded: spec.taints[0] (a:NoExecute)"
                + " timeAdded 2026-11-30T15:00:00Z, spec.taints[1] (b:NoExecute) timeAdded"
                + " 2026-11-30T15:00:00Z, spec.taints[2] (c:NoExecute) timeAdded"
                + " 2026-11-30T15:00:00Z, ...; set to 2026-11-30T16:00:00Z: a NoExecute taint"
                + " added now counts tolerationSeconds from now (the time a removed taint had"
                + " would evict tolerating Machines at once)");
  }

  @Test
  void v1alpha1DeletingAndOddShapesAreLeftAlone() {
    JsonNode object = pool("[{'key':'b','effect':'NoExecute'}]");
    assertThat(
            MUTATOR.handle(request("v1alpha1", Operation.CREATE, object, null)).patch().isEmpty())
        .isTrue();
    JsonNode deleting =
        json(
            "{'metadata':{'name':'p','deletionTimestamp':'2026-01-01T00:00:00Z'},"
                + "'spec':{'taints':[{'key':'b','effect':'NoExecute'}]}}");
    assertThat(
            MUTATOR
                .handle(request("v1alpha2", Operation.UPDATE, deleting, deleting))
                .patch()
                .isEmpty())
        .isTrue();
    for (String taints : new String[] {"null", "{}", "[null,'x']", "[]"}) {
      assertThat(
              MUTATOR
                  .handle(request("v1alpha2", Operation.CREATE, pool(taints), null))
                  .patch()
                  .isEmpty())
          .as(taints)
          .isTrue();
    }
  }
}

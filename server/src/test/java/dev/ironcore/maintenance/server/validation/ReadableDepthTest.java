package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
import org.junit.jupiter.api.Test;

class ReadableDepthTest {
  private static final ReadableDepth RULE = new ReadableDepth();

  /** A Machine whose {@code spec.x} makes the whole object {@code depth} levels deep. */
  private static JsonNode machineOfDepth(int depth) throws Exception {
    int inner = depth - 2; // the object and spec are two levels
    return JsonMappers.shared()
        .readTree(
            "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\","
                + "\"metadata\":{\"name\":\"m\",\"namespace\":\"ns\"},\"spec\":{\"x\":"
                + "[".repeat(inner)
                + "]".repeat(inner)
                + "}}");
  }

  @Test
  void anObjectReadableInTheOtherVersionPasses() throws Exception {
    assertThat(RULE.validate(machine(Operation.CREATE, machineOfDepth(3), null))).isEmpty();
    assertThat(RULE.validate(machine(Operation.CREATE, machineOfDepth(9_997), null))).isEmpty();
  }

  /**
   * One level more and the API server could not read the conversion reply (fresh eyes: a Machine of
   * 9,998 levels was stored, and every v1alpha1 list of Machines failed with "exceeded max depth").
   */
  @Test
  void anObjectTooDeepForAConversionReplyIsForbiddenAtItsDeepestField() throws Exception {
    assertThat(RULE.validate(machine(Operation.CREATE, machineOfDepth(9_998), null)))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.field()).isEqualTo("spec");
              assertThat(e.type()).isEqualTo(FieldError.Type.FORBIDDEN);
              assertThat(e.detail())
                  .startsWith("nested 9998 levels deep (the object being level 1), more than 9997");
            });
  }

  /**
   * The depth the review reader measured counts: {@code metadata.managedFields}, left out of the
   * tree, mirror the object's fields about four levels deeper, and a client may write them itself
   * (fresh eyes: objects that passed on the tree were stored too deep).
   */
  @Test
  void theMeasuredDepthCountsAndBlamesTheManagedFields() throws Exception {
    var request = machine(Operation.CREATE, machineOfDepth(9_990), null).withDepths(9_998, -1);
    assertThat(RULE.validate(request))
        .singleElement()
        .satisfies(e -> assertThat(e.field()).isEqualTo("metadata.managedFields"));
    assertThat(RULE.appliesWhileDeleting()).isTrue();
  }

  @Test
  void anUpdateThatDoesNotNestDeeperPasses() throws Exception {
    JsonNode deep = machineOfDepth(9_999);
    assertThat(RULE.validate(machine(Operation.UPDATE, machineOfDepth(9_998), deep))).isEmpty();
    assertThat(RULE.validate(machine(Operation.UPDATE, deep, machineOfDepth(9_998)))).hasSize(1);
  }
}

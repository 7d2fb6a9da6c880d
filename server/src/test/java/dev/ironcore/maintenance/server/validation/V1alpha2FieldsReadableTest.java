package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.admission.TestReviews.machinePool;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import org.junit.jupiter.api.Test;

class V1alpha2FieldsReadableTest {
  private static final V1alpha2FieldsReadable MACHINES = V1alpha2FieldsReadable.tolerations();
  private static final V1alpha2FieldsReadable POOLS = V1alpha2FieldsReadable.taints();

  private static final String READABLE =
      "{\"tolerations\":[{\"index\":0,\"entry\":{\"key\":\"k\",\"operator\":\"Exists\","
          + "\"effect\":\"NoExecute\",\"tolerationSeconds\":30}}]}";

  /** A Machine in {@code version}, with the annotation set to {@code value} (null: none). */
  private static JsonNode vm(String version, String value, String label) {
    ObjectNode vm =
        (ObjectNode)
            TestReviews.json(
                "{'apiVersion':'compute.ironcore.dev/"
                    + version
                    + "','kind':'Machine','metadata':{'name':'old-ann','namespace':'default',"
                    + "'labels':{'l':'"
                    + label
                    + "'},'annotations':{'note':'kept'}},'spec':{'tolerations':"
                    + "[{'key':'k','operator':'Exists','effect':'NoExecute'}]}}");
    if (value != null) {
      ((ObjectNode) vm.at("/metadata/annotations")).put(Names.V1ALPHA2_FIELDS_ANNOTATION, value);
    }
    return vm;
  }

  @Test
  void aV1alpha1WriteBringingAnUnreadableValueIsRefusedNamingTheAnnotation() {
    for (String value :
        new String[] {"not json", "", "[]", "null", "{\"tolerations\":\"x\"}", "{}x", "{}]]"}) {
      assertThat(MACHINES.validate(machine(Operation.CREATE, vm("v1alpha1", value, "a"), null)))
          .as(value)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.field())
                    .isEqualTo("metadata.annotations[maintenance.ironcore.dev/v1alpha2-fields]");
                assertThat(e.type()).isEqualTo(FieldError.Type.INVALID);
                assertThat(e.message())
                    .startsWith("Invalid value: " + quoted(value) + ": not what a v1alpha1 read")
                    .contains("tolerationSeconds of spec.tolerations")
                    .endsWith("remove it, or write tolerationSeconds in v1alpha2");
              });
      // changed from a readable value, or from another unreadable one
      assertThat(
              MACHINES.validate(
                  machine(
                      Operation.UPDATE, vm("v1alpha1", value, "a"), vm("v1alpha1", READABLE, "a"))))
          .hasSize(1);
      assertThat(
              MACHINES.validate(
                  machine(
                      Operation.UPDATE,
                      vm("v1alpha1", value, "a"),
                      vm("v1alpha1", value + " ", "a"))))
          .hasSize(1);
    }
    assertThat(
            MACHINES
                .validate(machine(Operation.CREATE, vm("v1alpha1", "not json", "a"), null))
                .get(0)
                .detail())
        .startsWith("not what a v1alpha1 read shows there (not valid JSON: Unrecognized token");
  }

  /**
   * Stored before our webhooks: an update that keeps the value (a label, a finalizer removed) and
   * one that removes or mends it pass, so the owner can repair or release the object.
   */
  @Test
  void anUpdateKeepingTheStoredValueOrRemovingItPasses() {
    JsonNode old = vm("v1alpha1", "not json", "a");
    assertThat(MACHINES.validate(machine(Operation.UPDATE, vm("v1alpha1", "not json", "b"), old)))
        .isEmpty();
    assertThat(MACHINES.validate(machine(Operation.UPDATE, vm("v1alpha1", null, "a"), old)))
        .isEmpty();
    assertThat(MACHINES.validate(machine(Operation.UPDATE, vm("v1alpha1", READABLE, "a"), old)))
        .isEmpty();
  }

  @Test
  void readableValuesAndV1alpha2WritesAreNotJudged() {
    assertThat(MACHINES.validate(machine(Operation.CREATE, vm("v1alpha1", READABLE, "a"), null)))
        .isEmpty();
    assertThat(MACHINES.validate(machine(Operation.CREATE, vm("v1alpha1", null, "a"), null)))
        .isEmpty();
    assertThat(MACHINES.validate(machine(Operation.CREATE, vm("v1alpha2", "not json", "a"), null)))
        .isEmpty();
  }

  @Test
  void aPoolIsToldAboutItsTaints() {
    JsonNode pool =
        TestReviews.json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'MachinePool',"
                + "'metadata':{'name':'p','annotations':{'"
                + Names.V1ALPHA2_FIELDS_ANNOTATION
                + "':'[1]'}},'spec':{'taints':[]}}");
    assertThat(POOLS.validate(machinePool(Operation.CREATE, pool, null)))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.detail())
                    .contains("timeAdded of spec.taints as a JSON object such as {\"taints\":"));
  }

  private static String quoted(String value) {
    return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.textNode(value).toString();
  }
}

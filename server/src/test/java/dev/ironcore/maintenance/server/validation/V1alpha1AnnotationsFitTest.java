package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.admission.TestReviews.machinePool;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import org.junit.jupiter.api.Test;

class V1alpha1AnnotationsFitTest {
  private static final V1alpha1AnnotationsFit MACHINES = V1alpha1AnnotationsFit.tolerations();
  private static final V1alpha1AnnotationsFit POOLS = V1alpha1AnnotationsFit.taints();

  /** A v1alpha2 Machine with {@code n} NoExecute tolerations of 60 s each. */
  private static ObjectNode machineWith(int n) {
    ObjectNode m =
        (ObjectNode)
            TestReviews.json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',"
                    + "'metadata':{'name':'m','namespace':'ns'},'spec':{'tolerations':[]}}");
    ArrayNode list = (ArrayNode) m.at("/spec/tolerations");
    for (int i = 0; i < n; i++) {
      list.addObject()
          .put("key", "k" + i)
          .put("operator", "Exists")
          .put("effect", "NoExecute")
          .put("tolerationSeconds", 60);
    }
    return m;
  }

  @Test
  void aMachineWhoseV1alpha1AnnotationsFitPasses() {
    assertThat(MACHINES.validate(machine(Operation.CREATE, machineWith(100), null))).isEmpty();
    assertThat(MACHINES.validate(machine(Operation.CREATE, machineWith(0), null))).isEmpty();
  }

  @Test
  void aMachineTooBigForV1alpha1IsForbiddenNamingTheList() throws Exception {
    ObjectNode big = machineWith(3200);
    assertThat(MACHINES.validate(machine(Operation.CREATE, big, null)))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.field()).isEqualTo("spec.tolerations");
              assertThat(e.type()).isEqualTo(FieldError.Type.FORBIDDEN);
              assertThat(e.detail())
                  .startsWith(
                      "in v1alpha1, which IronCore's clients read, this object's annotations")
                  .contains("more than the 262144 Kubernetes allows")
                  .endsWith("use fewer or shorter entries with tolerationSeconds");
            });
    JsonNode v1 = ComputeConverter.convert(big, ComputeVersions.V1ALPHA1);
    assertThat(MACHINES.validate(machine(Operation.CREATE, v1, null)))
        .as("the same Machine written in v1alpha1 with the annotation")
        .hasSize(1);
    ObjectNode onEntries = big.deepCopy().put("apiVersion", ComputeVersions.V1ALPHA1);
    assertThat(MACHINES.validate(machine(Operation.CREATE, onEntries, null)))
        .as(
            "written in v1alpha1 with tolerationSeconds on the entries (fresh eyes: measured as 0"
                + " bytes, stored, and every v1alpha1 list of Machines failed)")
        .hasSize(1);
    // an update through v1alpha1 that adds one timed toleration beside a near-limit annotation
    ObjectNode near = machineWith(0);
    ((ObjectNode) near.path("metadata"))
        .putObject("annotations")
        .put("big", "x".repeat((int) V1alpha1AnnotationsFit.LIMIT_BYTES - 100));
    ObjectNode patched = near.deepCopy().put("apiVersion", ComputeVersions.V1ALPHA1);
    ((ArrayNode) patched.at("/spec/tolerations"))
        .addObject()
        .put("key", "zz")
        .put("operator", "Exists")
        .put("effect", "NoExecute")
        .put("tolerationSeconds", 7);
    ObjectNode before = near.deepCopy().put("apiVersion", ComputeVersions.V1ALPHA1);
    assertThat(MACHINES.validate(machine(Operation.UPDATE, patched, before)))
        .singleElement()
        .satisfies(e -> assertThat(e.field()).isEqualTo("spec.tolerations"));
  }

  /** An object stored over the limit before this rule may still be updated without growing. */
  @Test
  void anUpdateThatDoesNotGrowTheAnnotationsPasses() {
    assertThat(MACHINES.validate(machine(Operation.UPDATE, machineWith(3200), machineWith(3200))))
        .isEmpty();
    assertThat(MACHINES.validate(machine(Operation.UPDATE, machineWith(3100), machineWith(3200))))
        .isEmpty();
    assertThat(MACHINES.validate(machine(Operation.UPDATE, machineWith(3200), machineWith(10))))
        .hasSize(1);
  }

  /**
   * An object near the limit whose own annotation grows past it: blamed on {@code
   * metadata.annotations}, with both parts' sizes (fresh eyes: a 10-byte annotation was reported as
   * too many tolerations).
   */
  @Test
  void anAnnotationThatCrossesTheLimitIsBlamedForIt() {
    ObjectNode near = machineWith(2900);
    ObjectNode grown = near.deepCopy();
    ((ObjectNode) grown.get("metadata")).putObject("annotations").put("note", "x".repeat(40_000));
    assertThat(MACHINES.validate(machine(Operation.UPDATE, grown, near)))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.field()).isEqualTo("metadata.annotations");
              assertThat(e.detail())
                  .containsPattern("there \\(\\d+ bytes; the other annotations 40004\\)")
                  .endsWith(
                      "use fewer or shorter annotations, or fewer entries with tolerationSeconds");
            });
    assertThat(MACHINES.validate(machine(Operation.UPDATE, machineWith(3200), near)))
        .singleElement()
        .satisfies(e -> assertThat(e.field()).isEqualTo("spec.tolerations"));
    ObjectNode fewWithBigNote = machineWith(2);
    ((ObjectNode) fewWithBigNote.get("metadata"))
        .putObject("annotations")
        .put("note", "x".repeat(262_100));
    assertThat(MACHINES.validate(machine(Operation.CREATE, fewWithBigNote, null)))
        .as("on CREATE the larger part is blamed")
        .singleElement()
        .satisfies(e -> assertThat(e.field()).isEqualTo("metadata.annotations"));
  }

  @Test
  void aPoolOfManyTimedTaintsIsForbidden() {
    ObjectNode pool =
        (ObjectNode)
            TestReviews.json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'MachinePool',"
                    + "'metadata':{'name':'p'},'spec':{'taints':[]}}");
    ArrayNode taints = (ArrayNode) pool.at("/spec/taints");
    for (int i = 0; i < 3000; i++) {
      taints
          .addObject()
          .put("key", "maintenance-" + i)
          .put("effect", "NoExecute")
          .put("timeAdded", "2026-12-05T07:00:00Z");
    }
    assertThat(POOLS.validate(machinePool(Operation.CREATE, pool, null)))
        .singleElement()
        .satisfies(e -> assertThat(e.field()).isEqualTo("spec.taints"));
    ObjectNode v1 = pool.deepCopy().put("apiVersion", ComputeVersions.V1ALPHA1);
    assertThat(POOLS.validate(machinePool(Operation.CREATE, v1, null)))
        .as("written in v1alpha1 with timeAdded on the taints")
        .singleElement()
        .satisfies(e -> assertThat(e.field()).isEqualTo("spec.taints"));
  }
}

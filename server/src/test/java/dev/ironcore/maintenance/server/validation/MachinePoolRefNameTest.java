package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.validation.MachinePoolRefImmutableTest.bound;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import org.junit.jupiter.api.Test;

class MachinePoolRefNameTest {
  private static final MachinePoolRefName RULE = new MachinePoolRefName();

  @Test
  void aValidPoolNameOrNoBindingPasses() {
    assertThat(RULE.validate(machine(Operation.CREATE, bound("pool-a.example"), null))).isEmpty();
    assertThat(RULE.validate(machine(Operation.CREATE, bound(null), null))).isEmpty();
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("p1"), bound(null)))).isEmpty();
  }

  @Test
  void aNewBindingToANameNoPoolCanHaveIsInvalid() {
    for (String bad : new String[] {"Pool_A", "-a", "a b", "x".repeat(254), "ä"}) {
      assertThat(RULE.validate(machine(Operation.CREATE, bound(bad), null)))
          .as(bad)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.field()).isEqualTo("spec.machinePoolRef.name");
                assertThat(e.type()).isEqualTo(FieldError.Type.INVALID);
                assertThat(e.detail()).contains("not a valid MachinePool name");
              });
    }
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("Bad"), bound(null)))).hasSize(1);
  }

  /**
   * {@code machinePoolRef: {name: ""}} or {@code {}}: IronCore counts a non-nil reference as bound
   * and refuses the empty name (validateMachineSpec); it was accepted as unbound (fresh eyes).
   */
  @Test
  void aReferenceWithoutANameIsRequiredToNameOne() {
    for (var ref :
        new com.fasterxml.jackson.databind.JsonNode[] {
          bound(""),
          TestReviews.json(
              "{'metadata':{'name':'m','namespace':'ns'},'spec':{'machinePoolRef':{}}}")
        }) {
      assertThat(RULE.validate(machine(Operation.CREATE, ref, null)))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.field()).isEqualTo("spec.machinePoolRef.name");
                assertThat(e.type()).isEqualTo(FieldError.Type.REQUIRED);
              });
      assertThat(RULE.validate(machine(Operation.UPDATE, ref, bound(null)))).hasSize(1);
      assertThat(RULE.validate(machine(Operation.UPDATE, ref, bound(""))))
          .as("stored that way before this rule: not refused again")
          .isEmpty();
      assertThat(RULE.validate(machine(Operation.UPDATE, ref, bound("pool-a"))))
          .as("clearing a binding: MachinePoolRefImmutable's one error, not a second here")
          .isEmpty();
    }
    assertThat(
            RULE.validate(
                machine(
                    Operation.CREATE,
                    TestReviews.json(
                        "{'metadata':{'name':'m','namespace':'ns'},'spec':{'machinePoolRef':null}}"),
                    null)))
        .as("a null reference is no binding")
        .isEmpty();
  }

  @Test
  void anUnchangedStoredBindingIsNotCheckedAgain() {
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("Bad"), bound("Bad")))).isEmpty();
  }
}

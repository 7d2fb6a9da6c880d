package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.validation.MachinePoolRefImmutableTest.bound;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
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

  @Test
  void anUnchangedStoredBindingIsNotCheckedAgain() {
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("Bad"), bound("Bad")))).isEmpty();
  }
}

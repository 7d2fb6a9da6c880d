package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
import org.junit.jupiter.api.Test;

class MachinePoolRefImmutableTest {
  private static final MachinePoolRefImmutable RULE = new MachinePoolRefImmutable();

  static JsonNode bound(String pool) {
    String ref = pool == null ? "" : ",'machinePoolRef':{'name':'" + pool + "'}";
    return json("{'metadata':{'name':'m','namespace':'ns'},'spec':{'power':'On'" + ref + "}}");
  }

  @Test
  void settingOnceIsAllowed() {
    assertThat(RULE.validate(machine(Operation.CREATE, bound("a"), null))).isEmpty();
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("a"), bound(null)))).isEmpty();
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("a"), bound("")))).isEmpty();
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("a"), bound("a")))).isEmpty();
    assertThat(RULE.validate(machine(Operation.UPDATE, bound(null), bound(null)))).isEmpty();
  }

  @Test
  void changingIsForbidden() {
    assertThat(RULE.validate(machine(Operation.UPDATE, bound("b"), bound("a"))))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.field()).isEqualTo("spec.machinePoolRef.name");
              assertThat(e.type()).isEqualTo(FieldError.Type.FORBIDDEN);
              assertThat(e.detail()).contains("\"a\"", "\"b\"");
            });
  }

  @Test
  void clearingIsForbidden() {
    assertThat(RULE.validate(machine(Operation.UPDATE, bound(null), bound("a"))))
        .singleElement()
        .satisfies(e -> assertThat(e.detail()).contains("cannot be cleared"));
    assertThat(RULE.validate(machine(Operation.UPDATE, bound(""), bound("a")))).hasSize(1);
    JsonNode noSpec = json("{'metadata':{'name':'m'}}");
    assertThat(RULE.validate(machine(Operation.UPDATE, noSpec, bound("a")))).hasSize(1);
  }
}

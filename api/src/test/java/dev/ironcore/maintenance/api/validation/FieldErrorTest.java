package dev.ironcore.maintenance.api.validation;

import static dev.ironcore.maintenance.api.validation.TestJson.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FieldErrorTest {

  @Test
  void rendersLikeKubernetesFieldErrors() {
    assertThat(FieldError.required("spec.taints[0].key", "").toString())
        .isEqualTo("spec.taints[0].key: Required value");
    assertThat(
            FieldError.invalid("spec.taints[0].key", "a b", "must be a qualified name").toString())
        .isEqualTo("spec.taints[0].key: Invalid value: \"a b\": must be a qualified name");
    assertThat(
            FieldError.notSupported(
                    "spec.taints[1].effect", "Later", List.of("NoSchedule", "NoExecute"))
                .toString())
        .isEqualTo(
            "spec.taints[1].effect: Unsupported value: \"Later\": supported values:"
                + " \"NoSchedule\", \"NoExecute\"");
    assertThat(
            FieldError.duplicate("spec.taints[2]", json("{'key':'k','effect':'NoSchedule'}"))
                .toString())
        .isEqualTo("spec.taints[2]: Duplicate value: {\"key\":\"k\",\"effect\":\"NoSchedule\"}");
    assertThat(FieldError.duplicate("spec.taints[2]", "k", "must be unique").toString())
        .isEqualTo("spec.taints[2]: Duplicate value: \"k\": must be unique");
    assertThat(FieldError.forbidden("spec.machinePoolRef.name", "immutable").toString())
        .isEqualTo("spec.machinePoolRef.name: Forbidden: immutable");
    assertThat(
            FieldError.invalid("spec.tolerations[0].tolerationSeconds", 5L, "only with NoExecute")
                .message())
        .isEqualTo("Invalid value: 5: only with NoExecute");
  }

  @Test
  void causeCarriesReasonMessageAndField() {
    assertThat(FieldError.forbidden("spec.x", "no").toCause())
        .isEqualTo(
            json("{'reason':'FieldValueForbidden','message':'Forbidden: no','field':'spec.x'}"));
  }
}

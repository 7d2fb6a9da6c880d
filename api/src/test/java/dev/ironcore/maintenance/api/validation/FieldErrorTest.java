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

  @Test
  void aLongBadValueIsCutAndItsLengthGiven() {
    String key = "a.".repeat(300_000) + "a/b";
    String shown = FieldError.invalid("spec.taints[0].key", key, "bad").message();
    assertThat(shown)
        .startsWith("Invalid value: \"a.a.a.")
        .endsWith("\"... (600003 characters, truncated): bad")
        .hasSizeLessThan(FieldError.MAX_SHOWN_VALUE_CHARS + 60);
    String quotes = "\"".repeat(1_000_000);
    // 256 characters shown, each escaped
    assertThat(FieldError.invalid("spec.x", quotes, "").message())
        .hasSizeLessThan(2 * FieldError.MAX_SHOWN_VALUE_CHARS + 60)
        .endsWith("... (1000000 characters, truncated)");
    com.fasterxml.jackson.databind.node.ArrayNode zeros =
        dev.ironcore.maintenance.api.json.JsonMappers.shared().createArrayNode();
    for (int i = 0; i < 50_000; i++) {
      zeros.add(0);
    }
    assertThat(FieldError.invalid("spec.taints", zeros, "").message())
        .startsWith("Invalid value: [0,0,")
        .endsWith("... (100001 characters, truncated)");
    assertThat(FieldError.invalid("spec.x", "short", "").message())
        .isEqualTo("Invalid value: \"short\"");
  }
}

package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionResponse.Decision;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionResponseTest {

  @Test
  void allowedHasOnlyUidAndAllowed() {
    assertThat(AdmissionResponse.allowed().toJson("u"))
        .isEqualTo(json("{'uid':'u','allowed':true}"));
    assertThat(AdmissionResponse.patched(JsonPatch.empty()).toJson("u"))
        .isEqualTo(json("{'uid':'u','allowed':true}"));
  }

  @Test
  void patchIsBase64OfTheJsonPatchWithPatchType() {
    JsonPatch patch = JsonPatch.builder().add("/metadata/finalizers", json("['f']")).build();
    ObjectNode wire = AdmissionResponse.patched(patch).toJson("u");
    assertThat(wire.get("patchType").asText()).isEqualTo("JSONPatch");
    String decoded =
        new String(Base64.getDecoder().decode(wire.get("patch").asText()), StandardCharsets.UTF_8);
    assertThat(json(decoded.replace('"', '\''))).isEqualTo(patch.toJson());
  }

  @Test
  void deniedWithoutCausesIsForbidden() {
    ObjectNode wire = AdmissionResponse.denied("no").toJson("u");
    assertThat(wire.get("allowed").asBoolean()).isFalse();
    assertThat(wire.get("status"))
        .isEqualTo(
            json(
                "{'metadata':{},'status':'Failure','message':'no',"
                    + "'reason':'Forbidden','code':403}"));
  }

  @Test
  void deniedWithCausesIsInvalid() {
    ObjectNode status =
        (ObjectNode)
            AdmissionResponse.denied("bad", FieldError.forbidden("spec.a", "x"))
                .toJson("u")
                .get("status");
    assertThat(status.get("code").asInt()).isEqualTo(422);
    assertThat(status.get("reason").asText()).isEqualTo("Invalid");
    assertThat(status.at("/details/causes/0/field").asText()).isEqualTo("spec.a");
  }

  @Test
  void invalidNamesKindObjectAndEveryError() {
    GroupVersionKind kind = new GroupVersionKind("compute.ironcore.dev", "v1alpha1", "Machine");
    ObjectNode status =
        (ObjectNode)
            AdmissionResponse.invalid(
                    kind,
                    "m1",
                    List.of(FieldError.forbidden("spec.a", "x"), FieldError.required("spec.b", "")))
                .toJson("u")
                .get("status");
    assertThat(status.get("message").asText())
        .isEqualTo(
            "Machine.compute.ironcore.dev \"m1\" is invalid: "
                + "[spec.a: Forbidden: x, spec.b: Required value]");
    assertThat(status.get("details"))
        .isEqualTo(
            json(
                "{'name':'m1','group':'compute.ironcore.dev','kind':'Machine',"
                    + "'causes':[{'reason':'FieldValueForbidden','message':'Forbidden: x','field':'spec.a'},"
                    + "{'reason':'FieldValueRequired','message':'Required value','field':'spec.b'}]}"));
  }

  @Test
  void erroredAndWarnings() {
    ObjectNode wire =
        AdmissionResponse.errored(500, "boom").withWarnings("w1").withWarnings("w2").toJson("u");
    assertThat(wire)
        .isEqualTo(
            json(
                "{'uid':'u','allowed':false,'status':{'metadata':{},'status':'Failure',"
                    + "'message':'boom','code':500},'warnings':['w1','w2']}"));
  }

  @Test
  void eachConstructorNamesItsDecisionAndWarningsKeepIt() {
    GroupVersionKind kind = new GroupVersionKind("compute.ironcore.dev", "v1alpha1", "Machine");
    assertThat(AdmissionResponse.allowed().decision()).isEqualTo(Decision.ALLOWED);
    assertThat(AdmissionResponse.patched(JsonPatch.empty()).decision()).isEqualTo(Decision.ALLOWED);
    assertThat(AdmissionResponse.patched(JsonPatch.builder().add("/a", "b").build()).decision())
        .isEqualTo(Decision.PATCHED);
    assertThat(AdmissionResponse.denied("no").decision()).isEqualTo(Decision.DENIED);
    assertThat(
            AdmissionResponse.invalid(kind, "m", List.of(FieldError.required("spec.a", "")))
                .decision())
        .isEqualTo(Decision.DENIED);
    assertThat(AdmissionResponse.errored(400, "bad").withWarnings("w").decision())
        .isEqualTo(Decision.ERRORED);
    assertThat(Decision.PATCHED.label()).isEqualTo("patched");
  }

  @Test
  void writtenStraightToBytesItIsTheTree() throws Exception {
    JsonPatch patch =
        JsonPatch.builder()
            .add("/metadata/finalizers", json("['f']"))
            .add("/metadata/annotations/a", "b")
            .build();
    List<AdmissionResponse> responses =
        List.of(
            AdmissionResponse.allowed(),
            AdmissionResponse.patched(patch),
            AdmissionResponse.patched(patch).withWarnings("w1", "ä \"quoted\""),
            AdmissionResponse.denied("no"),
            AdmissionResponse.denied("bad", FieldError.invalid("spec.x", "1", "must be 2")),
            AdmissionResponse.errored(400, "malformed"));
    for (AdmissionResponse response : responses) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      try (com.fasterxml.jackson.core.JsonGenerator g = TestReviews.MAPPER.createGenerator(out)) {
        response.write(g, "uid-\u00e4");
      }
      assertThat(out.toString(StandardCharsets.UTF_8))
          .as(response.toString())
          .isEqualTo(TestReviews.MAPPER.writeValueAsString(response.toJson("uid-\u00e4")));
    }
  }

  @Test
  void aDenialShowsTheFirst32ErrorsAndCountsTheRest() {
    java.util.List<FieldError> errors = new java.util.ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      errors.add(FieldError.invalid("spec.taints[" + i + "]", 0, "must be an object"));
    }
    AdmissionResponse denied =
        AdmissionResponse.invalid(
            new GroupVersionKind("compute.ironcore.dev", "v1alpha1", "MachinePool"), "p", errors);
    ObjectNode status = (ObjectNode) denied.toJson("u").get("status");
    assertThat(status.at("/details/causes")).hasSize(AdmissionResponse.MAX_CAUSES + 1);
    assertThat(status.at("/details/causes/31/field").asText()).isEqualTo("spec.taints[31]");
    // kubectl prints the causes: the last says that more were left out
    assertThat(status.at("/details/causes/32"))
        .isEqualTo(
            json(
                "{'reason':'FieldValueInvalid','field':'spec.taints[32]','message':"
                    + "'not shown, nor 49967 more errors after it (a denial shows at most 32)'}"));
    assertThat(denied.message())
        .startsWith(
            "MachinePool.compute.ironcore.dev \"p\" is invalid: [spec.taints[0]: Invalid value: 0:")
        .endsWith("spec.taints[31]: Invalid value: 0: must be an object, and 49968 more errors]")
        .hasSizeLessThan(3_000);
  }
}

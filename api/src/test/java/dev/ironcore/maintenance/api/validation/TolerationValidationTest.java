package dev.ironcore.maintenance.api.validation;

import static dev.ironcore.maintenance.api.validation.ErrorAssertions.assertErrors;
import static dev.ironcore.maintenance.api.validation.TestJson.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TolerationValidationTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        // valid
        "{'key':'maintenance.ironcore.dev','operator':'Exists','effect':'NoExecute'}  |",
        "{'key':'k','value':'v'}                                                      |",
        "{'key':'k','operator':'Equal','value':'','effect':'NoSchedule'}              |",
        "{'operator':'Exists'}                                                        |",
        "{'key':'','operator':'Exists','effect':'NoExecute','tolerationSeconds':300}  |",
        "{'key':'k','operator':'Exists','effect':'NoExecute','tolerationSeconds':-1}  |",
        "{'key':'k','tolerationSeconds':null}                                         |",
        // key
        "{'key':'Bad Key!','operator':'Exists'}   | spec.tolerations[0].key: Invalid value: \"Bad Key!\": name part must consist",
        "{'key':'a/b/c','operator':'Exists'}      | spec.tolerations[0].key: Invalid value: \"a/b/c\": a qualified name",
        "{'key':1,'operator':'Exists'}            | spec.tolerations[0].key: Invalid value: 1: must be a string",
        // empty key needs Exists
        "{}                                       | spec.tolerations[0].operator: Invalid value: \"\": must be Exists when key is empty",
        "{'operator':'Equal','value':'v'}         | spec.tolerations[0].operator: Invalid value: \"Equal\": must be Exists when key is empty",
        "{'key':'','effect':'NoExecute'}          | spec.tolerations[0].operator: Invalid value: \"\"",
        // operator
        "{'key':'k','operator':'In'}              | spec.tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"",
        "{'key':'k','operator':'exists'}          | spec.tolerations[0].operator: Unsupported value: \"exists\"",
        "{'operator':'Gt','value':'x y'}          | spec.tolerations[0].operator: Invalid value: \"Gt\": must be Exists when key is empty ;; spec.tolerations[0].operator: Unsupported value: \"Gt\"",
        // value
        "{'key':'k','operator':'Exists','value':'v'} | spec.tolerations[0].value: Invalid value: \"v\": must be empty when operator is Exists",
        "{'key':'k','operator':'Equal','value':'a b'} | spec.tolerations[0].value: Invalid value: \"a b\": a label value must be empty or",
        "{'key':'k','value':'-v'}                   | spec.tolerations[0].value: Invalid value: \"-v\"",
        "{'key':'k','value':['v']}                  | spec.tolerations[0].value: Invalid value: [\"v\"]: must be a string",
        // effect
        "{'key':'k','effect':'PreferNoSchedule'}    | spec.tolerations[0].effect: Unsupported value: \"PreferNoSchedule\": supported values: \"NoSchedule\", \"NoExecute\"",
        // tolerationSeconds
        "{'key':'k','effect':'NoSchedule','tolerationSeconds':60} | spec.tolerations[0].effect: Invalid value: \"NoSchedule\": must be NoExecute when tolerationSeconds is set",
        "{'key':'k','tolerationSeconds':60}                       | spec.tolerations[0].effect: Invalid value: \"\": must be NoExecute when tolerationSeconds is set",
        "{'key':'k','effect':'NoExecute','tolerationSeconds':'60'} | spec.tolerations[0].tolerationSeconds: Invalid value: \"60\": must be an integer",
        "{'key':'k','effect':'NoExecute','tolerationSeconds':1.5}  | spec.tolerations[0].tolerationSeconds: Invalid value: 1.5: must be an integer",
        "{'key':'k','effect':'NoExecute','tolerationSeconds':99999999999999999999} | spec.tolerations[0].tolerationSeconds: Invalid value: 99999999999999999999",
        // shape
        "'k'                                        | spec.tolerations[0]: Invalid value: \"k\": must be an object",
      })
  void rules(String toleration, String expected) {
    assertErrors(
        TolerationValidation.validate(json("[" + toleration + "]"), "spec.tolerations"),
        expected == null ? "" : expected);
  }

  @Test
  void reportsEveryErrorAtOnceInListOrder() {
    assertErrors(
        TolerationValidation.validate(
            json(
                "[{'key':'ok','operator':'Exists'},"
                    + "{'key':'Bad Key!','operator':'Exists','value':'v','effect':'Later','tolerationSeconds':5},"
                    + "{'operator':'Equal'}]"),
            "spec.tolerations"),
        "spec.tolerations[1].key: Invalid value ;; spec.tolerations[1].value: Invalid value ;; "
            + "spec.tolerations[1].effect: Unsupported value ;; spec.tolerations[2].operator: Invalid value");
  }

  @Test
  void absentOrWronglyShapedLists() {
    assertThat(TolerationValidation.validate(null, "spec.tolerations")).isEmpty();
    assertErrors(
        TolerationValidation.validate(json("'all'"), "spec.tolerations"),
        "spec.tolerations: Invalid value: \"all\": must be a list of tolerations");
  }

  @Test
  void onlyNewTolerationsAreValidated() {
    String tolerations =
        "[{'key':'Bad Key!','operator':'Exists'},{'key':'k','operator':'In'},'all']";
    assertErrors(
        TolerationValidation.validate(json(tolerations), "spec.tolerations", i -> false), "");
    assertErrors(
        TolerationValidation.validate(json(tolerations), "spec.tolerations", i -> i != 0),
        "spec.tolerations[1].operator: Unsupported value ;; spec.tolerations[2]: Invalid value");
    assertErrors(
        TolerationValidation.validate(json("'all'"), "spec.tolerations", i -> false),
        "spec.tolerations: Invalid value");
  }
}

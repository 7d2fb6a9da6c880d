package dev.ironcore.maintenance.api.validation;

import static dev.ironcore.maintenance.api.validation.ErrorAssertions.assertErrors;
import static dev.ironcore.maintenance.api.validation.TestJson.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TaintValidationTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      emptyValue = "",
      value = {
        // valid
        "[{'key':'maintenance.ironcore.dev','effect':'NoSchedule'}]                  |",
        "[{'key':'k','value':'','effect':'NoExecute'}]                               |",
        "[{'key':'example.com/k','value':'v-1','effect':'NoExecute','timeAdded':'2026-01-01T00:00:00Z'}] |",
        "[{'key':'k','effect':'NoSchedule'},{'key':'k','effect':'NoExecute'}]         |",
        "[{'key':'k','value':'a','effect':'NoSchedule'},{'key':'k2','value':'a','effect':'NoSchedule'}] |",
        "[]                                                                          |",
        // key
        "[{'effect':'NoSchedule'}]                   | spec.taints[0].key: Required value",
        "[{'key':'','effect':'NoSchedule'}]          | spec.taints[0].key: Required value",
        "[{'key':'Bad Key!','effect':'NoSchedule'}]  | spec.taints[0].key: Invalid value: \"Bad Key!\": name part must consist",
        "[{'key':'a/b/c','effect':'NoSchedule'}]     | spec.taints[0].key: Invalid value: \"a/b/c\": a qualified name",
        "[{'key':'/k','effect':'NoSchedule'}]        | spec.taints[0].key: Invalid value: \"/k\": prefix part must not be empty",
        "[{'key':'EX.com/k-','effect':'NoSchedule'}] | spec.taints[0].key: Invalid value: \"EX.com/k-\": prefix part ;; spec.taints[0].key: Invalid value: \"EX.com/k-\": name part",
        "[{'key':7,'effect':'NoSchedule'}]           | spec.taints[0].key: Invalid value: 7: must be a string",
        // value
        "[{'key':'k','value':'a b','effect':'NoSchedule'}]  | spec.taints[0].value: Invalid value: \"a b\": a label value must be empty or",
        "[{'key':'k','value':true,'effect':'NoSchedule'}]   | spec.taints[0].value: Invalid value: true: must be a string",
        // effect
        "[{'key':'k'}]                                      | spec.taints[0].effect: Required value",
        "[{'key':'k','effect':''}]                          | spec.taints[0].effect: Required value",
        "[{'key':'k','effect':'PreferNoSchedule'}]          | spec.taints[0].effect: Unsupported value: \"PreferNoSchedule\": supported values: \"NoSchedule\", \"NoExecute\"",
        "[{'key':'k','effect':'noexecute'}]                 | spec.taints[0].effect: Unsupported value: \"noexecute\"",
        // duplicates: same key and effect, whatever the value
        "[{'key':'k','effect':'NoSchedule'},{'key':'k','value':'v','effect':'NoSchedule'}] | spec.taints[1]: Duplicate value: {\"key\":\"k\",\"effect\":\"NoSchedule\"}: taints must be unique by key and effect",
        "[{'key':'k','effect':'NoExecute'},{'key':'j','effect':'NoExecute'},{'key':'k','effect':'NoExecute'},{'key':'k','effect':'NoExecute'}] | spec.taints[2]: Duplicate value ;; spec.taints[3]: Duplicate value",
        // shape
        "[{'key':'k','effect':'NoSchedule'},'k:NoSchedule'] | spec.taints[1]: Invalid value: \"k:NoSchedule\": must be an object",
        "{'key':'k'}                                        | spec.taints: Invalid value: {\"key\":\"k\"}: must be a list of taints",
      })
  void rules(String taints, String expected) {
    assertErrors(
        TaintValidation.validate(json(taints), "spec.taints"), expected == null ? "" : expected);
  }

  @Test
  void reportsEveryErrorAtOnceInListOrder() {
    assertErrors(
        TaintValidation.validate(
            json(
                "[{'key':'Bad Key!','value':'-x','effect':'Later'},"
                    + "{'key':'ok','effect':'NoSchedule'},{'key':'ok','effect':'NoSchedule'},{}]"),
            "spec.taints"),
        "spec.taints[0].key: Invalid value ;; spec.taints[0].value: Invalid value ;; "
            + "spec.taints[0].effect: Unsupported value ;; spec.taints[2]: Duplicate value ;; "
            + "spec.taints[3].key: Required value ;; spec.taints[3].effect: Required value");
  }

  @Test
  void timeAddedMustBeAnRfc3339DateTime() {
    assertErrors(
        TaintValidation.validate(
            json(
                "[{'key':'a','effect':'NoExecute','timeAdded':'2026-12-05T10:00:00Z'},"
                    + "{'key':'b','effect':'NoExecute','timeAdded':'2026-12-05T10:00:00.5+01:00'},"
                    + "{'key':'c','effect':'NoExecute','timeAdded':null},"
                    + "{'key':'d','effect':'NoExecute','timeAdded':'yesterday'},"
                    + "{'key':'e','effect':'NoExecute','timeAdded':12345},"
                    + "{'key':'f','effect':'NoExecute','timeAdded':'2026-12-05T10:00:00'},"
                    + "{'key':'g','effect':'NoExecute','timeAdded':'2026-12-05T10:00Z'},"
                    + "{'key':'h','effect':'NoExecute','timeAdded':'2026-12-05T10:00:00+01'},"
                    + "{'key':'i','effect':'NoExecute','timeAdded':'2026-13-05T10:00:00Z'},"
                    + "{'key':'j','effect':'NoExecute','timeAdded':'2026-12-05t10:00:00z'}]"),
            "spec.taints"),
        "spec.taints[3].timeAdded: Invalid value ;; spec.taints[4].timeAdded: Invalid value ;; "
            + "spec.taints[5].timeAdded: Invalid value ;; spec.taints[6].timeAdded: Invalid value"
            + " ;; spec.taints[7].timeAdded: Invalid value ;; spec.taints[8].timeAdded: Invalid"
            + " value ;; spec.taints[9].timeAdded: Invalid value");
    assertThat(
            TaintValidation.validate(
                    json("[{'key':'j','effect':'NoExecute','timeAdded':'2026-12-05t10:00:00z'}]"),
                    "spec.taints")
                .get(0)
                .toString())
        .as("RFC 3339 allows it, the schema too, Go's metav1.Time cannot read it")
        .contains("must write T and Z in upper case");
    assertThat(
            TaintValidation.validate(
                    json("[{'key':'d','effect':'NoExecute','timeAdded':'yesterday'}]"),
                    "spec.taints")
                .get(0)
                .toString())
        .contains("\"yesterday\"")
        .contains("must be an RFC 3339 date-time, e.g. 2026-12-05T10:00:00Z");
  }

  /**
   * Fresh eyes (session 40): offsets past {@code ±18:00} (java.time's limit) were refused as "must
   * be an RFC 3339 date-time", while RFC 3339, the schema and Go's {@code metav1.Time} take up to
   * {@code ±23:59}.
   */
  @Test
  void everyRfc3339OffsetIsADateTimeAndReadAsTheInstantItNames() {
    for (String ok :
        List.of(
            "2026-12-06T10:00:00+19:00",
            "2026-12-06T10:00:00-23:59",
            "2026-12-06T10:00:00.25+18:30",
            "2026-12-06T10:00:00+18:00")) {
      assertThat(TaintValidation.isDateTime(TextNode.valueOf(ok))).as(ok).isTrue();
    }
    for (String bad :
        List.of(
            "2026-12-06T10:00:00+24:00",
            "2026-12-06T10:00:00+19:60",
            "2026-12-32T10:00:00+19:00")) {
      assertThat(TaintValidation.isDateTime(TextNode.valueOf(bad))).as(bad).isFalse();
    }
    assertThat(dev.ironcore.maintenance.api.compute.TimeAdded.parse("2026-12-06T10:00:00+19:00"))
        .isEqualTo(java.time.Instant.parse("2026-12-05T15:00:00Z"));
    assertThat(dev.ironcore.maintenance.api.compute.TimeAdded.parse("2026-12-06T10:00:00.5-23:30"))
        .isEqualTo(java.time.Instant.parse("2026-12-07T09:30:00.5Z"));
    assertThat(dev.ironcore.maintenance.api.compute.TimeAdded.parse("2026-12-06T10:00:00+01:00"))
        .isEqualTo(java.time.Instant.parse("2026-12-06T09:00:00Z"));
  }

  @Test
  void absentTaintsAreValid() {
    assertThat(TaintValidation.validate(null, "spec.taints")).isEmpty();
    assertThat(TaintValidation.validate(NullNode.getInstance(), "spec.taints")).isEmpty();
    assertThat(TaintValidation.validate(MissingNode.getInstance(), "spec.taints")).isEmpty();
  }

  @Test
  void onlyNewTaintsAreValidated() {
    String taints =
        "[{'key':'Bad Key!','effect':'NoSchedule'},{'key':'k','effect':'Later'},'k:NoSchedule',7]";
    assertErrors(TaintValidation.validate(json(taints), "spec.taints", i -> false), "");
    assertErrors(
        TaintValidation.validate(json(taints), "spec.taints", i -> i == 1),
        "spec.taints[1].effect: Unsupported value");
    assertErrors(
        TaintValidation.validate(json(taints), "spec.taints", i -> i >= 2),
        "spec.taints[2]: Invalid value ;; spec.taints[3]: Invalid value");
    assertErrors(
        TaintValidation.validate(json("{'key':'k'}"), "spec.taints", i -> false),
        "spec.taints: Invalid value");
  }

  @Test
  void aDuplicateIsReportedWhenOneOfTheTwoTaintsIsNew() {
    String three =
        "[{'key':'d','effect':'NoExecute'},{'key':'d','value':'v','effect':'NoExecute'},"
            + "{'key':'d','value':'w','effect':'NoExecute'}]";
    assertErrors(TaintValidation.validate(json(three), "spec.taints", i -> false), "");
    assertErrors(
        TaintValidation.validate(json(three), "spec.taints", i -> i == 2),
        "spec.taints[2]: Duplicate value");
    assertErrors(
        TaintValidation.validate(json(three), "spec.taints", i -> i == 1),
        "spec.taints[1]: Duplicate value ;; spec.taints[2]: Duplicate value");
    assertErrors(
        TaintValidation.validate(json(three), "spec.taints", i -> i == 0),
        "spec.taints[1]: Duplicate value ;; spec.taints[2]: Duplicate value");
    // a taint whose key or effect is not a string takes no part in duplicates, new or not
    assertErrors(
        TaintValidation.validate(
            json("[{'key':'d','effect':7},{'key':'d','effect':7}]"), "spec.taints", i -> i == 1),
        "spec.taints[1].effect: Invalid value: 7");
  }
}

package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.admission.TestReviews.machinePool;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ListFieldValidatorTest {
  private static final ListFieldValidator TAINTS = ListFieldValidator.taints();
  private static final ListFieldValidator TOLERATIONS = ListFieldValidator.tolerations();

  static JsonNode pool(String taints) {
    return json(
        "{'metadata':{'name':'p'},'spec':{'providerID':'x'"
            + (taints == null ? "" : ",'taints':" + taints)
            + "}}");
  }

  static JsonNode vm(String tolerations) {
    return json(
        "{'metadata':{'name':'m','namespace':'ns'},'spec':{'machinePoolRef':{'name':'p'}"
            + (tolerations == null ? "" : ",'tolerations':" + tolerations)
            + "}}");
  }

  private static List<String> fields(List<FieldError> errors) {
    return errors.stream().map(FieldError::field).toList();
  }

  @Test
  void validatesTheListOnCreate() {
    assertThat(TAINTS.validate(machinePool(Operation.CREATE, pool(null), null))).isEmpty();
    assertThat(
            fields(
                TAINTS.validate(
                    machinePool(
                        Operation.CREATE,
                        pool(
                            "[{'key':'Bad Key!','effect':'NoSchedule'},{'key':'k','effect':'Later'}]"),
                        null))))
        .containsExactly("spec.taints[0].key", "spec.taints[1].effect");
    assertThat(
            fields(
                TOLERATIONS.validate(machine(Operation.CREATE, vm("[{'operator':'In'}]"), null))))
        .as("an empty key needs Exists, and In is no operator: both, as Kubernetes says them")
        .containsExactly("spec.tolerations[0].operator", "spec.tolerations[0].operator");
  }

  @Test
  void anUpdateIsDeniedForNewErrorsOnly() {
    JsonNode legacy = pool("[{'key':'Bad Key!','effect':'NoSchedule'}]");
    // the controller appends the maintenance taints to a pool with a legacy invalid taint
    JsonNode tainted =
        pool(
            "[{'key':'Bad Key!','effect':'NoSchedule'},"
                + "{'key':'maintenance.ironcore.dev','effect':'NoSchedule'},"
                + "{'key':'maintenance.ironcore.dev','effect':'NoExecute'}]");
    assertThat(TAINTS.validate(machinePool(Operation.UPDATE, tainted, legacy))).isEmpty();
    JsonNode worse =
        pool("[{'key':'Bad Key!','effect':'NoSchedule'},{'key':'k','effect':'Later'}]");
    assertThat(fields(TAINTS.validate(machinePool(Operation.UPDATE, worse, legacy))))
        .containsExactly("spec.taints[1].effect");
    assertThat(fields(TAINTS.validate(machinePool(Operation.UPDATE, legacy, pool(null)))))
        .containsExactly("spec.taints[0].key");
  }

  /** The tester's pool, created while the validating webhook was absent. */
  private static final String BAD_TAINTS = "{'key':'bad key'}|{'key':'k','effect':'Weird'}";

  private static final String BAD_TOLERATIONS =
      "{'key':'Bad Key!','operator':'Exists'}|{'key':'k','operator':'In'}";

  /**
   * Ratcheting by entry value. Lists are written as {@code |}-separated entries; expected errors as
   * {@code ;;}-separated beginnings of {@code field: message}, in order.
   */
  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @CsvSource(
      delimiter = '~',
      quoteCharacter = '"',
      emptyValue = "",
      value = {
        // the tester's cases
        "taints      ~ " + BAD_TAINTS + " ~ {'key':'k','effect':'Weird'} ~",
        "taints      ~ "
            + BAD_TAINTS
            + " ~ {'key':'ok','effect':'NoSchedule'}|"
            + BAD_TAINTS
            + " ~",
        "taints      ~ " + BAD_TAINTS + " ~ {'key':'k','effect':'Weird'}|{'key':'bad key'} ~",
        "taints      ~ "
            + BAD_TAINTS
            + " ~ "
            + BAD_TAINTS
            + "|{'key':'maintenance.ironcore.dev','effect':'NoExecute'} ~",
        // a changed entry is fully validated, also for errors it had before
        "taints      ~ "
            + BAD_TAINTS
            + " ~ {'key':'bad key','effect':'NoSchedule'}|{'key':'k','effect':'Weird'}"
            + " ~ spec.taints[0].key: Invalid value: \"bad key\"",
        "taints      ~ "
            + BAD_TAINTS
            + " ~ {'key':'bad key','value':'v'}|{'key':'k','effect':'Weird'}"
            + " ~ spec.taints[0].key: Invalid value ;; spec.taints[0].effect: Required value",
        "taints      ~ "
            + BAD_TAINTS
            + " ~ {'key':'ok','effect':'NoSchedule'}|{'key':'bad key'}|{'key':'k','effect':'Weirder'}"
            + " ~ spec.taints[2].effect: Unsupported value: \"Weirder\"",
        // a new bad entry is reported at its new index
        "taints      ~ "
            + BAD_TAINTS
            + " ~ {'key':'x','effect':'Later'}|"
            + BAD_TAINTS
            + " ~ spec.taints[0].effect: Unsupported value: \"Later\"",
        "taints      ~ "
            + BAD_TAINTS
            + " ~ {'key':'bad key'}|{'key':'x/'}|{'key':'k','effect':'Weird'}"
            + " ~ spec.taints[1].key: Invalid value: \"x/\" ;; spec.taints[1].effect: Required value",
        "taints      ~ ~ "
            + BAD_TAINTS
            + " ~ spec.taints[0].key ;; spec.taints[0].effect ;; spec.taints[1].effect",
        // duplicates: reported only when one of the two entries is new
        "taints      ~ {'key':'d','effect':'NoExecute'}|{'key':'d','value':'v','effect':'NoExecute'}"
            + " ~ {'key':'ok','effect':'NoSchedule'}|{'key':'d','value':'v','effect':'NoExecute'}|{'key':'d','effect':'NoExecute'} ~",
        "taints      ~ {'key':'d','effect':'NoExecute'}"
            + " ~ {'key':'d','effect':'NoExecute'}|{'key':'d','value':'v','effect':'NoExecute'}"
            + " ~ spec.taints[1]: Duplicate value: {\"key\":\"d\",\"effect\":\"NoExecute\"}",
        "taints      ~ {'key':'d','effect':'NoExecute'}"
            + " ~ {'key':'d','value':'v','effect':'NoExecute'}|{'key':'d','effect':'NoExecute'}"
            + " ~ spec.taints[1]: Duplicate value",
        "taints      ~ {'key':'d','effect':'NoExecute'}|{'key':'d','value':'v','effect':'NoExecute'}"
            + " ~ {'key':'d','effect':'NoExecute'}|{'key':'d','value':'w','effect':'NoExecute'}"
            + " ~ spec.taints[1]: Duplicate value",
        // an exact copy: each old entry stands for one new entry, the copy is new
        "taints      ~ {'key':'d','effect':'NoExecute'} ~ {'key':'d','effect':'NoExecute'}|{'key':'d','effect':'NoExecute'}"
            + " ~ spec.taints[1]: Duplicate value",
        "taints      ~ "
            + BAD_TAINTS
            + " ~ "
            + BAD_TAINTS
            + "|{'key':'k','effect':'Weird'}"
            + " ~ spec.taints[2].effect: Unsupported value ;; spec.taints[2]: Duplicate value",
        // tolerations
        "tolerations ~ " + BAD_TOLERATIONS + " ~ {'key':'k','operator':'In'} ~",
        "tolerations ~ " + BAD_TOLERATIONS + " ~ {'operator':'Exists'}|" + BAD_TOLERATIONS + " ~",
        "tolerations ~ "
            + BAD_TOLERATIONS
            + " ~ {'key':'k','operator':'In'}|{'key':'Bad Key!','operator':'Exists'} ~",
        "tolerations ~ "
            + BAD_TOLERATIONS
            + " ~ {'key':'Bad Key!','operator':'Equal'}|{'key':'k','operator':'In'}"
            + " ~ spec.tolerations[0].key: Invalid value: \"Bad Key!\"",
        "tolerations ~ "
            + BAD_TOLERATIONS
            + " ~ {'key':'Bad Key!','operator':'Exists'}|{'key':'k','operator':'Within'}"
            + " ~ spec.tolerations[1].operator: Unsupported value: \"Within\"",
        "tolerations ~ "
            + BAD_TOLERATIONS
            + " ~ {'key':'k','effect':'Later'}|"
            + BAD_TOLERATIONS
            + " ~ spec.tolerations[0].effect: Unsupported value: \"Later\"",
        "tolerations ~ ~ "
            + BAD_TOLERATIONS
            + " ~ spec.tolerations[0].key ;; spec.tolerations[1].operator",
        // tolerations may repeat; an exact copy of a bad one is a new bad entry
        "tolerations ~ {'key':'k','operator':'Exists'} ~ {'key':'k','operator':'Exists'}|{'key':'k','operator':'Exists'} ~",
        "tolerations ~ "
            + BAD_TOLERATIONS
            + " ~ "
            + BAD_TOLERATIONS
            + "|{'key':'k','operator':'In'}"
            + " ~ spec.tolerations[2].operator: Unsupported value",
      })
  void anUpdateRatchetsByEntryValue(String list, String old, String now, String expected) {
    boolean taints = list.equals("taints");
    ListFieldValidator validator = taints ? TAINTS : TOLERATIONS;
    JsonNode oldObject = taints ? pool(array(old)) : vm(array(old));
    JsonNode object = taints ? pool(array(now)) : vm(array(now));
    AdmissionRequest request =
        taints
            ? machinePool(Operation.UPDATE, object, oldObject)
            : machine(Operation.UPDATE, object, oldObject);
    List<String> actual = validator.validate(request).stream().map(FieldError::toString).toList();
    List<String> wanted =
        expected == null
            ? List.of()
            : Arrays.stream(expected.split(";;")).map(String::strip).toList();
    assertThat(actual).as("errors").hasSize(wanted.size());
    for (int i = 0; i < wanted.size(); i++) {
      assertThat(actual.get(i)).as("error %d of %s", i, actual).startsWith(wanted.get(i));
    }
  }

  private static String array(String entries) {
    return entries == null ? null : "[" + entries.replace('|', ',') + "]";
  }

  @Test
  void aListThatIsNotAnArrayIsRatchetedOnlyWhileUnchanged() {
    assertThat(
            TAINTS.validate(
                machinePool(Operation.UPDATE, pool("'k:NoSchedule'"), pool("'k:NoSchedule'"))))
        .isEmpty();
    assertThat(
            fields(
                TAINTS.validate(
                    machinePool(Operation.UPDATE, pool("'k:NoExecute'"), pool("'k:NoSchedule'")))))
        .containsExactly("spec.taints");
    assertThat(
            fields(
                TAINTS.validate(
                    machinePool(Operation.UPDATE, pool("[{'key':'k'}]"), pool("{'key':'k'}")))))
        .containsExactly("spec.taints[0].effect");
  }

  @Test
  void entriesMatchByJsonValueWhateverTheMemberOrder() {
    assertThat(
            TAINTS.validate(
                machinePool(
                    Operation.UPDATE,
                    pool("[{'effect':'Weird','key':'k'}]"),
                    pool("[{'key':'k','effect':'Weird'}]"))))
        .isEmpty();
  }

  @Test
  void theWebhookRoutesDenyLikeKubernetesValidation() {
    Map<String, dev.ironcore.maintenance.server.admission.AdmissionHandler> routes =
        AdmissionRoutes.create(labels -> true);
    var pools = routes.get(AdmissionRoutes.VALIDATE_MACHINEPOOL);
    AdmissionResponse denied =
        pools.handle(
            machinePool(
                Operation.CREATE,
                pool(
                    "[{'key':'Bad Key!','effect':"
                        + "'NoSchedule'},{'key':'k','effect':'NoExecute'},{'key':'k','effect':'NoExecute'}]"),
                null));
    assertThat(denied.code()).isEqualTo(422);
    assertThat(denied.message())
        .startsWith(
            "MachinePool.compute.ironcore.dev \"p\" is invalid: "
                + "[spec.taints[0].key: Invalid value: \"Bad Key!\": name part must consist")
        .endsWith(
            ", spec.taints[2]: Duplicate value: {\"key\":\"k\",\"effect\":\"NoExecute\"}: taints must be"
                + " unique by key and effect]");
    assertThat(denied.toJson("u").at("/status/details/causes")).hasSize(2);

    var machines = routes.get(AdmissionRoutes.VALIDATE_MACHINE);
    AdmissionResponse both =
        machines.handle(
            machine(
                Operation.UPDATE,
                json(
                    "{'metadata':{'name':'m'},'spec':{'machinePoolRef':{'name':'b'},'tolerations':[{'value':'v'}]}}"),
                vm(null)));
    assertThat(both.toJson("u").at("/status/details/causes")).hasSize(2);
    assertThat(both.message())
        .contains("spec.machinePoolRef.name: Forbidden", "spec.tolerations[0].operator");
  }

  /** A v1alpha1 Machine carrying v1alpha2 tolerations in the reserved annotation. */
  private static JsonNode v1alpha1Vm(String tolerations, String recorded) {
    ObjectNode vm = (ObjectNode) vm(tolerations);
    vm.put("apiVersion", "compute.ironcore.dev/v1alpha1");
    vm.put("kind", "Machine");
    ((ObjectNode) vm.get("metadata"))
        .putObject("annotations")
        .put(
            dev.ironcore.maintenance.api.Names.V1ALPHA2_FIELDS_ANNOTATION,
            recorded.replace('\'', '"'));
    return vm;
  }

  /**
   * A v1alpha1 Machine whose toleration {@code k} has {@code tolerationSeconds} in the annotation.
   */
  private static JsonNode v1alpha1Toleration(String effect, String tolerationSeconds) {
    String entry = "{'key':'k','operator':'Exists','effect':'" + effect + "'";
    return v1alpha1Vm(
        "[" + entry + "}]",
        "{'tolerations':[{'index':0,'entry':"
            + entry
            + ",'tolerationSeconds':"
            + tolerationSeconds
            + "}}]}");
  }

  @Test
  void aV1alpha1WriteIsValidatedAsItWillBeStoredWithTheAnnotationsFields() {
    JsonNode notANumber = v1alpha1Toleration("NoExecute", "'abc'");
    assertThat(fields(TOLERATIONS.validate(machine(Operation.CREATE, notANumber, null))))
        .containsExactly("spec.tolerations[0].tolerationSeconds");
    JsonNode onNoSchedule = v1alpha1Toleration("NoSchedule", "30");
    assertThat(fields(TOLERATIONS.validate(machine(Operation.CREATE, onNoSchedule, null))))
        .containsExactly("spec.tolerations[0].effect");
    assertThat(TOLERATIONS.validate(machine(Operation.CREATE, onNoSchedule, null)))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.detail())
                    .as("a v1alpha1 client does not see tolerationSeconds on the entry")
                    .endsWith(
                        "(in v1alpha1 from the annotation"
                            + " maintenance.ironcore.dev/v1alpha2-fields, where the API server"
                            + " also moves one written on the entry once a mutating webhook"
                            + " changed the object)"));
    JsonNode onTheEntry =
        v1alpha1Vm(
            "[{'key':'a','operator':'Exists','effect':'NoExecute'},"
                + "{'key':'b','operator':'Exists','effect':'NoSchedule','tolerationSeconds':5}]",
            "{'tolerations':[{'index':0,'entry':{'key':'a','operator':'Exists',"
                + "'effect':'NoExecute','tolerationSeconds':30}}]}");
    assertThat(TOLERATIONS.validate(machine(Operation.CREATE, onTheEntry, null)))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.field()).isEqualTo("spec.tolerations[1].effect");
              assertThat(e.detail())
                  .as("the member is on the entry as sent, not from the annotation")
                  .doesNotContain("annotation");
            });
    JsonNode fine = v1alpha1Toleration("NoExecute", "30");
    assertThat(TOLERATIONS.validate(machine(Operation.CREATE, fine, null))).isEmpty();
    // ratcheting compares what is stored: an unchanged bad entry of the old object passes
    assertThat(TOLERATIONS.validate(machine(Operation.UPDATE, notANumber, notANumber))).isEmpty();
    // an annotation that is not what down-conversion writes carries no fields
    // (V1alpha2FieldsReadable
    // refuses a new one)
    JsonNode unreadable =
        v1alpha1Vm("[{'key':'k','operator':'Exists','effect':'NoExecute'}]", "not json");
    assertThat(TOLERATIONS.validate(machine(Operation.CREATE, unreadable, null))).isEmpty();
  }
}

package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.validation.MachinePoolRefImmutableTest.bound;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidatingHandlerTest {
  private static final Validator ALWAYS_WRONG =
      r -> List.of(FieldError.required("spec.a", ""), FieldError.invalid("spec.b", "x", "why"));

  private static JsonNode deleting(JsonNode object, String... finalizers) {
    ObjectNode copy = object.deepCopy();
    ObjectNode metadata = (ObjectNode) copy.get("metadata");
    metadata.put("deletionTimestamp", "2026-01-01T00:00:00Z");
    ArrayNode array = metadata.putArray("finalizers");
    for (String f : finalizers) {
      array.add(f);
    }
    return copy;
  }

  @Test
  void reportsEveryErrorOfEveryValidatorAtOnce() {
    ValidatingHandler handler =
        new ValidatingHandler(List.of(ALWAYS_WRONG, new MachinePoolRefImmutable()));
    AdmissionResponse response = handler.handle(machine(Operation.UPDATE, bound("b"), bound("a")));
    assertThat(response.isAllowed()).isFalse();
    assertThat(response.code()).isEqualTo(422);
    JsonNode status = response.toJson("u").get("status");
    assertThat(status.at("/details/causes")).hasSize(3);
    assertThat(status.at("/details/kind").asText()).isEqualTo("Machine");
    assertThat(status.at("/details/name").asText()).isEqualTo("m");
    assertThat(status.get("message").asText())
        .startsWith("Machine.compute.ironcore.dev \"m\" is invalid: [")
        .contains("spec.machinePoolRef.name: Forbidden");
  }

  @Test
  void validObjectsAndEmptyValidatorListAreAllowed() {
    assertThat(
            new ValidatingHandler(List.of(new MachinePoolRefImmutable()))
                .handle(machine(Operation.UPDATE, bound("a"), bound(null)))
                .isAllowed())
        .isTrue();
    assertThat(
            new ValidatingHandler(List.of())
                .handle(machine(Operation.CREATE, bound("a"), null))
                .isAllowed())
        .isTrue();
  }

  @Test
  void deleteIsNeverValidated() {
    assertThat(
            new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.DELETE, null, bound("a")))
                .isAllowed())
        .isTrue();
  }

  @Test
  void removingFinalizersFromADeletingObjectIsAlwaysAllowed() {
    ValidatingHandler handler = new ValidatingHandler(List.of(ALWAYS_WRONG));
    JsonNode old = deleting(bound("a"), "x", "y");
    JsonNode dropped = deleting(bound("a"), "y");
    ((ObjectNode) dropped.get("metadata"))
        .put("resourceVersion", "8")
        .putArray("managedFields")
        .addObject();
    assertThat(handler.handle(machine(Operation.UPDATE, dropped, old)).isAllowed()).isTrue();
    assertThat(handler.handle(machine(Operation.UPDATE, deleting(bound("a")), old)).isAllowed())
        .isTrue();
  }

  /**
   * The tester's patch {"spec":{"machinePoolRef":{"name":"pool-y"}}} on a Machine held by a user
   * finalizer.
   */
  @Test
  void aBindingChangeOfADeletingMachineIsDenied() {
    ValidatingHandler handler = new ValidatingHandler(List.of(new MachinePoolRefImmutable()));
    JsonNode old = deleting(bound("pool-r"), "hold");
    AdmissionResponse changed =
        handler.handle(machine(Operation.UPDATE, deleting(bound("pool-y"), "hold"), old));
    assertThat(changed.isAllowed()).isFalse();
    assertThat(changed.code()).isEqualTo(422);
    assertThat(changed.message())
        .contains("spec.machinePoolRef.name: Forbidden", "\"pool-r\"", "\"pool-y\"");
    // also when the same update drops the finalizers:
    // {"metadata":{"finalizers":null},"spec":{"machinePoolRef":null}}
    AdmissionResponse cleared =
        handler.handle(machine(Operation.UPDATE, deleting(bound(null)), old));
    assertThat(cleared.isAllowed()).isFalse();
    assertThat(cleared.message())
        .contains("spec.machinePoolRef.name: Forbidden", "cannot be cleared");
  }

  @Test
  void onADeletingObjectOnlyTheRulesThatApplyWhileDeletingRun() {
    ValidatingHandler handler =
        new ValidatingHandler(List.of(ALWAYS_WRONG, new MachinePoolRefImmutable()));
    JsonNode old = deleting(bound("a"), "x", "y");
    AdmissionResponse rebound =
        handler.handle(machine(Operation.UPDATE, deleting(bound("b"), "y"), old));
    assertThat(rebound.toJson("u").at("/status/details/causes"))
        .singleElement()
        .satisfies(c -> assertThat(c.get("field").asText()).isEqualTo("spec.machinePoolRef.name"));
    assertThat(
            handler.handle(machine(Operation.UPDATE, deleting(bound("a"), "y"), old)).isAllowed())
        .isTrue();
    // binding a deleting unbound Machine is setting it once, which is allowed
    assertThat(
            handler
                .handle(machine(Operation.UPDATE, deleting(bound("a")), deleting(bound(null), "x")))
                .isAllowed())
        .isTrue();
    // adding a finalizer is refused by the API server itself; we do not deny it
    assertThat(
            handler
                .handle(machine(Operation.UPDATE, deleting(bound("a"), "x", "y", "z"), old))
                .isAllowed())
        .isTrue();
  }

  /**
   * Invalid tolerations on a deleting Machine: ignored, the finalizer can go; the binding is still
   * checked.
   */
  @Test
  void theMachineRouteSkipsTolerationsButNotTheBindingWhileDeleting() {
    AdmissionHandler machines =
        AdmissionRoutes.create(labels -> true).get(AdmissionRoutes.VALIDATE_MACHINE);
    JsonNode badTolerations =
        json(
            "{'metadata':{'name':'m','namespace':'ns'},'spec':{'machinePoolRef':"
                + "{'name':'a'},'tolerations':[{'operator':'In'}]}}");
    JsonNode old = deleting(badTolerations, "hold");
    assertThat(
            machines.handle(machine(Operation.UPDATE, deleting(badTolerations), old)).isAllowed())
        .isTrue();
    ObjectNode rebound = deleting(badTolerations).deepCopy();
    ((ObjectNode) rebound.at("/spec/machinePoolRef")).put("name", "b");
    AdmissionResponse denied = machines.handle(machine(Operation.UPDATE, rebound, old));
    assertThat(denied.toJson("u").at("/status/details/causes")).hasSize(1);
    assertThat(denied.message()).contains("spec.machinePoolRef.name: Forbidden");
  }

  /**
   * On a deleting Machine or pool, a new entry's v1alpha2-only member must still have the type the
   * v1alpha2 schema requires (a v1alpha1 write bypasses that schema; fresh eyes, session 44: {@code
   * tolerationSeconds: "abc"} was stored on a deleting Machine); nothing else of the entry's syntax
   * is judged, and entries stored before keep their values.
   */
  @Test
  void whileDeletingNewEntriesKeepTheV1alpha2SchemasTypes() {
    var routes = AdmissionRoutes.create(labels -> true);
    AdmissionHandler machines = routes.get(AdmissionRoutes.VALIDATE_MACHINE);
    JsonNode stored =
        deleting(
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','metadata':{'name':'m',"
                    + "'namespace':'ns'},'spec':{'tolerations':[{'key':'k','operator':'Exists',"
                    + "'effect':'NoExecute','tolerationSeconds':'old'}]}}"),
            "hold");
    ObjectNode added = stored.deepCopy();
    ((ArrayNode) added.at("/spec/tolerations"))
        .addObject()
        .put("key", "x")
        .put("operator", "Exists")
        .put("effect", "NoExecute")
        .put("tolerationSeconds", "abc");
    AdmissionResponse denied = machines.handle(machine(Operation.UPDATE, added, stored));
    assertThat(denied.isAllowed()).isFalse();
    assertThat(denied.toJson("u").at("/status/details/causes")).hasSize(1);
    assertThat(denied.message())
        .contains("spec.tolerations[1].tolerationSeconds: Invalid value: \"abc\"");
    ObjectNode badSyntax = stored.deepCopy();
    ((ArrayNode) badSyntax.at("/spec/tolerations")).addObject().put("operator", "In");
    assertThat(machines.handle(machine(Operation.UPDATE, badSyntax, stored)).isAllowed())
        .as("syntax is not judged while deleting")
        .isTrue();
    ObjectNode released = stored.deepCopy();
    ((ObjectNode) released.get("metadata")).putArray("finalizers");
    assertThat(machines.handle(machine(Operation.UPDATE, released, stored)).isAllowed())
        .as("an entry stored before keeps its value")
        .isTrue();

    AdmissionHandler pools = routes.get(AdmissionRoutes.VALIDATE_MACHINEPOOL);
    JsonNode pool =
        deleting(
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','metadata':{'name':'p'},"
                    + "'spec':{'taints':[]}}"),
            "hold");
    ObjectNode tainted = pool.deepCopy();
    ((ArrayNode) tainted.at("/spec/taints"))
        .addObject()
        .put("key", "k")
        .put("effect", "NoExecute")
        .put("timeAdded", "yesterday");
    assertThat(pools.handle(TestReviews.machinePool(Operation.UPDATE, tainted, pool)).message())
        .contains("spec.taints[0].timeAdded: Invalid value: \"yesterday\"");
    // the schema takes it, Go's metav1.Time does not (fresh eyes, session 44)
    ((ObjectNode) tainted.at("/spec/taints/0")).put("timeAdded", "2026-12-07t00:00:00z");
    assertThat(pools.handle(TestReviews.machinePool(Operation.UPDATE, tainted, pool)).message())
        .contains("must write T and Z in upper case");
  }

  /**
   * While deleting, the types are checked on new entries only, matched by value (an entry inserted
   * before a stored bad one leaves that one alone), and on what the v1alpha2-fields annotation puts
   * back on an entry (a v1alpha1 client's other way to send the members).
   */
  @Test
  void whileDeletingOnlyNewEntriesAreCheckedTheAnnotationsIncluded() {
    var routes = AdmissionRoutes.create(labels -> true);
    AdmissionHandler machines = routes.get(AdmissionRoutes.VALIDATE_MACHINE);
    JsonNode stored =
        deleting(
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':"
                    + "{'name':'m','namespace':'ns'},'spec':{'tolerations':[{'key':'k',"
                    + "'operator':'Exists','effect':'NoExecute','tolerationSeconds':'old'}]}}"),
            "hold");
    ObjectNode inserted = stored.deepCopy();
    ((ArrayNode) inserted.at("/spec/tolerations"))
        .insertObject(0)
        .put("key", "new")
        .put("operator", "Exists")
        .put("effect", "NoExecute")
        .put("tolerationSeconds", 30);
    assertThat(machines.handle(machine(Operation.UPDATE, inserted, stored)).isAllowed())
        .as("the stored bad value moved to index 1 is not new")
        .isTrue();

    JsonNode plain =
        deleting(
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':"
                    + "{'name':'m','namespace':'ns'},'spec':{'tolerations':[{'key':'k',"
                    + "'operator':'Exists','effect':'NoExecute'}]}}"),
            "hold");
    ObjectNode annotated = plain.deepCopy();
    ((ObjectNode) annotated.get("metadata"))
        .putObject("annotations")
        .put(
            "maintenance.ironcore.dev/v1alpha2-fields",
            "{\"tolerations\":[{\"index\":0,\"entry\":{\"key\":\"k\",\"operator\":\"Exists\","
                + "\"effect\":\"NoExecute\",\"tolerationSeconds\":1.5}}]}");
    assertThat(machines.handle(machine(Operation.UPDATE, annotated, plain)).message())
        .contains("spec.tolerations[0].tolerationSeconds: Invalid value: 1.5")
        .contains("(in v1alpha1 from the annotation maintenance.ironcore.dev/v1alpha2-fields,");

    AdmissionHandler pools = routes.get(AdmissionRoutes.VALIDATE_MACHINEPOOL);
    JsonNode pool =
        deleting(
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'MachinePool','metadata':"
                    + "{'name':'p'},'spec':{'taints':[{'key':'k','effect':'NoExecute'}]}}"),
            "hold");
    ObjectNode timed = pool.deepCopy();
    ((ObjectNode) timed.get("metadata"))
        .putObject("annotations")
        .put(
            "maintenance.ironcore.dev/v1alpha2-fields",
            "{\"taints\":[{\"index\":0,\"entry\":{\"key\":\"k\",\"effect\":\"NoExecute\","
                + "\"timeAdded\":\"yesterday\"}}]}");
    assertThat(pools.handle(TestReviews.machinePool(Operation.UPDATE, timed, pool)).message())
        .contains("spec.taints[0].timeAdded: Invalid value: \"yesterday\"")
        .contains("(in v1alpha1 from the annotation");
  }

  /**
   * A deleting unbound Machine bound for the first time: the name must be one a pool can have, and
   * {@code {}} is no binding (fresh eyes: {@code Bad_Name} and {@code {}} were accepted while
   * deleting, and {@code Bad_Name} was then locked in); an unchanged stored binding still lets the
   * finalizers go.
   */
  @Test
  void theMachineRouteChecksANewBindingOfADeletingMachine() {
    AdmissionHandler machines =
        AdmissionRoutes.create(labels -> true).get(AdmissionRoutes.VALIDATE_MACHINE);
    JsonNode unbound = deleting(json("{'metadata':{'name':'m','namespace':'ns'},'spec':{}}"), "x");
    ObjectNode badName = deleting(bound("Bad_Name"), "x").deepCopy();
    assertThat(machines.handle(machine(Operation.UPDATE, badName, unbound)).message())
        .contains(
            "spec.machinePoolRef.name: Invalid value: \"Bad_Name\": not a valid MachinePool name");
    ObjectNode empty =
        deleting(
                json("{'metadata':{'name':'m','namespace':'ns'},'spec':{'machinePoolRef':{}}}"),
                "x")
            .deepCopy();
    assertThat(machines.handle(machine(Operation.UPDATE, empty, unbound)).message())
        .contains("spec.machinePoolRef.name: Required value");
    assertThat(
            machines
                .handle(machine(Operation.UPDATE, deleting(bound("pool-a")), unbound))
                .isAllowed())
        .as("set once, to a valid name")
        .isTrue();
    assertThat(
            machines
                .handle(machine(Operation.UPDATE, deleting(bound("Bad_Name")), badName))
                .isAllowed())
        .as("an invalid binding stored earlier: the finalizer can go")
        .isTrue();
  }

  @Test
  void rulesDoNotApplyWhileDeletingUnlessTheySaySo() {
    assertThat(ALWAYS_WRONG.appliesWhileDeleting()).isFalse();
    // the lists apply with the v1alpha2 schema's types only (validateWhileDeleting)
    assertThat(ListFieldValidator.taints().appliesWhileDeleting()).isTrue();
    assertThat(ListFieldValidator.tolerations().appliesWhileDeleting()).isTrue();
    assertThat(
            new ListFieldValidator("/spec/x", "spec.x", (l, p, n) -> List.of(), null)
                .appliesWhileDeleting())
        .isFalse();
    assertThat(new MachinePoolRefImmutable().appliesWhileDeleting()).isTrue();
    assertThat(new MachinePoolRefName().appliesWhileDeleting()).isTrue();
  }

  /** A client may send a stale object without deletionTimestamp; oldObject alone decides too. */
  @Test
  void anUpdateIsTreatedAsDeletingWhenOnlyOneSideIsDeleting() {
    ValidatingHandler handler = new ValidatingHandler(List.of(ALWAYS_WRONG));
    assertThat(
            handler
                .handle(machine(Operation.UPDATE, bound("a"), deleting(bound("a"), "x")))
                .isAllowed())
        .isTrue();
    assertThat(
            handler.handle(machine(Operation.UPDATE, deleting(bound("a")), bound("a"))).isAllowed())
        .isTrue();
    ValidatingHandler binding =
        new ValidatingHandler(List.of(ALWAYS_WRONG, new MachinePoolRefImmutable()));
    assertThat(
            binding
                .handle(machine(Operation.UPDATE, bound("b"), deleting(bound("a"), "x")))
                .message())
        .contains("spec.machinePoolRef.name: Forbidden")
        .doesNotContain("spec.a");
  }

  @Test
  void createIsValidatedEvenWithAClientSuppliedDeletionTimestamp() {
    // the API server drops it on create, so the object would be stored live
    assertThat(
            new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.CREATE, deleting(bound("a")), null))
                .isAllowed())
        .isFalse();
  }

  @Test
  void finalizerRemovalFromALiveObjectIsValidatedNormally() {
    JsonNode old = json("{'metadata':{'name':'m','finalizers':['x']},'spec':{}}");
    JsonNode object = json("{'metadata':{'name':'m','finalizers':[]},'spec':{}}");
    assertThat(
            new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.UPDATE, object, old))
                .isAllowed())
        .isFalse();
  }

  @Test
  void subresourceUpdatesAreNotValidated() {
    ObjectNode review =
        TestReviews.review(
            "u",
            "compute.ironcore.dev",
            "v1alpha1",
            "Machine",
            "machines",
            Operation.UPDATE,
            bound("b"),
            bound("a"));
    ((ObjectNode) review.get("request")).put("subResource", "status");
    assertThat(
            new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(AdmissionRequest.fromReview(review))
                .isAllowed())
        .isTrue();
  }

  @Test
  void aNonStringDeletionTimestampCountsAsDeleting() {
    ObjectNode old = bound("a").deepCopy();
    ((ObjectNode) old.get("metadata")).put("deletionTimestamp", 1767225600);
    assertThat(
            new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.UPDATE, bound("b"), old))
                .isAllowed())
        .isTrue();
  }
}

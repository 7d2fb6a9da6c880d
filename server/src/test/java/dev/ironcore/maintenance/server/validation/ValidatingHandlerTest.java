package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.validation.MachinePoolRefImmutableTest.bound;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.FieldError;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidatingHandlerTest {
    private static final Validator ALWAYS_WRONG = r -> List.of(FieldError.required("spec.a", ""),
            FieldError.invalid("spec.b", "x", "why"));

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
        ValidatingHandler handler = new ValidatingHandler(List.of(ALWAYS_WRONG, new MachinePoolRefImmutable()));
        AdmissionResponse response = handler.handle(machine(Operation.UPDATE, bound("b"), bound("a")));
        assertThat(response.isAllowed()).isFalse();
        assertThat(response.code()).isEqualTo(422);
        JsonNode status = response.toJson("u").get("status");
        assertThat(status.at("/details/causes")).hasSize(3);
        assertThat(status.at("/details/kind").asText()).isEqualTo("Machine");
        assertThat(status.at("/details/name").asText()).isEqualTo("m");
        assertThat(status.get("message").asText()).startsWith("Machine.compute.ironcore.dev \"m\" is invalid: [")
                .contains("spec.machinePoolRef.name: Forbidden");
    }

    @Test
    void validObjectsAndEmptyValidatorListAreAllowed() {
        assertThat(new ValidatingHandler(List.of(new MachinePoolRefImmutable()))
                .handle(machine(Operation.UPDATE, bound("a"), bound(null))).isAllowed()).isTrue();
        assertThat(new ValidatingHandler(List.of()).handle(machine(Operation.CREATE, bound("a"), null)).isAllowed())
                .isTrue();
    }

    @Test
    void deleteIsNeverValidated() {
        assertThat(new ValidatingHandler(List.of(ALWAYS_WRONG)).handle(machine(Operation.DELETE, null, bound("a")))
                .isAllowed()).isTrue();
    }

    @Test
    void removingFinalizersFromADeletingObjectIsAlwaysAllowed() {
        ValidatingHandler handler = new ValidatingHandler(List.of(ALWAYS_WRONG));
        JsonNode old = deleting(bound("a"), "x", "y");
        JsonNode dropped = deleting(bound("a"), "y");
        ((ObjectNode) dropped.get("metadata")).put("resourceVersion", "8").putArray("managedFields").addObject();
        assertThat(handler.handle(machine(Operation.UPDATE, dropped, old)).isAllowed()).isTrue();
        assertThat(handler.handle(machine(Operation.UPDATE, deleting(bound("a")), old)).isAllowed()).isTrue();
    }

    @Test
    void otherChangesToADeletingObjectAreStillValidated() {
        ValidatingHandler handler = new ValidatingHandler(List.of(new MachinePoolRefImmutable()));
        JsonNode old = deleting(bound("a"), "x", "y");
        assertThat(handler.handle(machine(Operation.UPDATE, deleting(bound("b"), "y"), old)).isAllowed()).isFalse();
        assertThat(new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.UPDATE, deleting(bound("a"), "x", "y", "z"), old)).isAllowed()).isFalse();
        assertThat(new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.UPDATE, deleting(bound("a"), "x", "y"), old)).isAllowed()).isFalse();
        assertThat(new ValidatingHandler(List.of(ALWAYS_WRONG))
                .handle(machine(Operation.UPDATE, deleting(bound("a"), "z"), old)).isAllowed()).isFalse();
    }

    @Test
    void finalizerRemovalFromALiveObjectIsValidatedNormally() {
        JsonNode old = json("{'metadata':{'name':'m','finalizers':['x']},'spec':{}}");
        JsonNode object = json("{'metadata':{'name':'m','finalizers':[]},'spec':{}}");
        assertThat(FinalizerRemovalWhileDeleting.test(machine(Operation.UPDATE, object, old))).isFalse();
        assertThat(new ValidatingHandler(List.of(ALWAYS_WRONG)).handle(machine(Operation.UPDATE, object, old))
                .isAllowed()).isFalse();
    }
}

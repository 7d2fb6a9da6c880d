package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * Recognises the UPDATE that must always be allowed (domain reference §4): an object that is
 * being deleted drops one or more finalizers and changes nothing else. Whatever else is wrong with
 * such an object (for example data stored before validation existed), denying this update would
 * block its deletion forever.
 */
public final class FinalizerRemovalWhileDeleting {
    /** Metadata the API server itself changes on any write; ignored when comparing. */
    private static final List<String> SERVER_MANAGED = List.of("finalizers", "managedFields", "resourceVersion",
            "generation");

    private FinalizerRemovalWhileDeleting() {}

    /**
     * @param request any admission request
     * @return true when it is an UPDATE, oldObject has a {@code deletionTimestamp}, the new
     *         finalizers are the old ones with at least one removed (none added), and the objects are
     *         otherwise equal (ignoring {@code resourceVersion}, {@code generation} and
     *         {@code managedFields})
     */
    public static boolean test(AdmissionRequest request) {
        if (request.operation() != Operation.UPDATE || request.object() == null || request.oldObject() == null
                || !KubeObjects.isDeleting(request.oldObject())) {
            return false;
        }
        List<String> before = finalizers(request.oldObject());
        List<String> after = finalizers(request.object());
        List<String> remaining = new ArrayList<>(before);
        for (String finalizer : after) {
            if (!remaining.remove(finalizer)) {
                return false;
            }
        }
        return after.size() < before.size() && withoutServerManaged(request.object())
                .equals(withoutServerManaged(request.oldObject()));
    }

    private static List<String> finalizers(JsonNode object) {
        List<String> finalizers = new ArrayList<>();
        object.path("metadata").path("finalizers").forEach(f -> finalizers.add(f.asText()));
        return finalizers;
    }

    private static JsonNode withoutServerManaged(JsonNode object) {
        JsonNode copy = object.deepCopy();
        if (copy.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove(SERVER_MANAGED);
        }
        return copy;
    }
}

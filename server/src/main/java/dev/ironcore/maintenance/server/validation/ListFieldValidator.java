package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.api.validation.TaintValidation;
import dev.ironcore.maintenance.api.validation.TolerationValidation;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * Runs one pure list validation of the api module on a field of the object: {@link #taints()}
 * for MachinePools, {@link #tolerations()} for Machines (domain reference §4 "Validation").
 *
 * <p>On UPDATE, an error that the same rule already reports for {@code oldObject} (same path,
 * kind, value and detail) is not reported again ("ratcheting", as the API server does for CRD
 * schema validation): IronCore validates none of this, so objects stored before this webhook was
 * installed may carry invalid entries, and denying every later update of them would, for
 * example, block the controller from adding the maintenance taints to such a pool. A change that
 * introduces a new error is still denied.
 */
public final class ListFieldValidator implements Validator {
    private final String pointer;
    private final String path;
    private final BiFunction<JsonNode, String, List<FieldError>> rule;

    /**
     * @param pointer where the list is in the object, e.g. {@code /spec/taints}
     * @param path    the same as a field path for errors, e.g. {@code spec.taints}
     * @param rule    (list node or missing node, path) → errors
     */
    public ListFieldValidator(String pointer, String path, BiFunction<JsonNode, String, List<FieldError>> rule) {
        this.pointer = Objects.requireNonNull(pointer, "pointer");
        this.path = Objects.requireNonNull(path, "path");
        this.rule = Objects.requireNonNull(rule, "rule");
    }

    /** @return validation of a MachinePool's {@code spec.taints} ({@link TaintValidation}) */
    public static ListFieldValidator taints() {
        return new ListFieldValidator("/spec/taints", "spec.taints", TaintValidation::validate);
    }

    /** @return validation of a Machine's {@code spec.tolerations} ({@link TolerationValidation}) */
    public static ListFieldValidator tolerations() {
        return new ListFieldValidator("/spec/tolerations", "spec.tolerations", TolerationValidation::validate);
    }

    @Override
    public List<FieldError> validate(AdmissionRequest request) {
        List<FieldError> errors = new ArrayList<>(rule.apply(request.object().at(pointer), path));
        if (request.operation() == Operation.UPDATE && !errors.isEmpty() && request.oldObject() != null) {
            errors.removeAll(rule.apply(request.oldObject().at(pointer), path));
        }
        return errors;
    }
}

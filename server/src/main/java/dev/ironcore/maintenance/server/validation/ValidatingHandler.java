package dev.ironcore.maintenance.server.validation;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a list of {@link Validator}s on CREATE and UPDATE and denies with all their errors at once
 * as a Kubernetes-style 422 Invalid (domain reference §4), so kubectl prints e.g.
 * {@code The Machine "m" is invalid: spec.machinePoolRef.name: Forbidden: ...}.
 *
 * <p>Always allowed without running the validators: DELETE and CONNECT, subresource requests, and
 * every UPDATE whose {@code object} or {@code oldObject} has a {@code deletionTimestamp} (see
 * {@link AdmissionRequest#createsOrUpdatesLiveObject()}). Domain reference §4 says never to deny
 * the update that removes a finalizer from an object being deleted; such an update may carry
 * other changes too (a merge patch like {@code {"metadata":{"finalizers":null},"spec":{...}}}),
 * so any update of a deleting object is allowed. The webhook manifests' {@code not-deleting}
 * match condition keeps the API server from calling us for these at all; this is the same rule
 * on our side.
 */
public final class ValidatingHandler implements AdmissionHandler {
    private final List<Validator> validators;

    /** @param validators the rules, run in order; an empty list allows everything */
    public ValidatingHandler(List<Validator> validators) {
        this.validators = List.copyOf(validators);
    }

    @Override
    public AdmissionResponse handle(AdmissionRequest request) {
        if (!request.createsOrUpdatesLiveObject()) {
            return AdmissionResponse.allowed();
        }
        List<FieldError> errors = new ArrayList<>();
        validators.forEach(v -> errors.addAll(v.validate(request)));
        return errors.isEmpty() ? AdmissionResponse.allowed()
                : AdmissionResponse.invalid(request.kind(), request.displayName(), errors);
    }
}

package dev.ironcore.maintenance.server.validation;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import java.util.List;

/**
 * One validation rule, pure. {@link ValidatingHandler} runs a list of them and reports every error
 * at once (domain reference §4, "Validation").
 */
@FunctionalInterface
public interface Validator {
    /**
     * @param request a CREATE or UPDATE request ({@code object} is set; {@code oldObject} is set
     *                on UPDATE)
     * @return all errors found, with Kubernetes field paths such as {@code spec.taints[1].effect};
     *         empty when valid
     */
    List<FieldError> validate(AdmissionRequest request);
}

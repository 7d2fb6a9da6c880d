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
   * @param request a CREATE or UPDATE request ({@code object} is set; {@code oldObject} is set on
   *     UPDATE); an UPDATE of an object being deleted only when {@link #appliesWhileDeleting()} is
   *     true
   * @return all errors found, with Kubernetes field paths such as {@code spec.taints[1].effect};
   *     empty when valid
   */
  List<FieldError> validate(AdmissionRequest request);

  /**
   * @return true when {@link ValidatingHandler} must also run this rule on an UPDATE of an object
   *     being deleted ({@code deletionTimestamp} on {@code object} or {@code oldObject}); only for
   *     rules that guard an invariant other components rely on during the deletion and that a
   *     finalizer-only update can never break, such as an immutable field. False by default: such
   *     updates are then allowed without this rule.
   */
  default boolean appliesWhileDeleting() {
    return false;
  }

  /**
   * What this rule checks on an UPDATE of an object being deleted, when {@link
   * #appliesWhileDeleting()} is true: by default the same as {@link #validate}; a rule may check
   * less there (only what must hold during a deletion).
   *
   * @param request an UPDATE whose {@code object} or {@code oldObject} has a {@code
   *     deletionTimestamp}
   * @return all errors found; empty when valid
   */
  default List<FieldError> validateWhileDeleting(AdmissionRequest request) {
    return validate(request);
  }
}

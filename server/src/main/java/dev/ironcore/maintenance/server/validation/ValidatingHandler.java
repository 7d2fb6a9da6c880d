package dev.ironcore.maintenance.server.validation;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a list of {@link Validator}s on CREATE and UPDATE and denies with all their errors at once
 * as a Kubernetes-style 422 Invalid (domain reference §4), so kubectl prints e.g. {@code The
 * Machine "m" is invalid: spec.machinePoolRef.name: Forbidden: ...}.
 *
 * <p>Which validators run:
 *
 * <ul>
 *   <li>CREATE, and UPDATE of an object that is not being deleted: all of them;
 *   <li>UPDATE whose {@code object} or {@code oldObject} has a {@code deletionTimestamp}: only
 *       those with {@link Validator#appliesWhileDeleting()} (such as {@link
 *       MachinePoolRefImmutable}), through {@link Validator#validateWhileDeleting}: of the taints
 *       and tolerations only the types the v1alpha2 schema requires of new entries ({@link
 *       ListFieldValidator}); the rest is skipped, so a deleting object that no longer passes them
 *       can still drop its finalizers (domain reference §4). A rule that applies while deleting
 *       must never deny an update that only removes finalizers;
 *   <li>DELETE, CONNECT and subresource requests: none, always allowed.
 * </ul>
 *
 * The webhook manifests' match conditions keep the API server from calling us for a finalizer-only
 * update of a deleting object at all, so it works with the webhook server down; a binding change on
 * a deleting Machine still reaches us.
 */
public final class ValidatingHandler implements AdmissionHandler {
  private final List<Validator> validators;
  private final List<Validator> whileDeleting;

  /**
   * @param validators the rules, run in order; an empty list allows everything
   */
  public ValidatingHandler(List<Validator> validators) {
    this.validators = List.copyOf(validators);
    this.whileDeleting = this.validators.stream().filter(Validator::appliesWhileDeleting).toList();
  }

  /**
   * @param request any admission request
   * @return allowed, or 422 Invalid with the errors of every validator that applies (see the class
   *     comment)
   */
  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    List<FieldError> errors = new ArrayList<>();
    if (request.createsOrUpdatesLiveObject()) {
      validators.forEach(v -> errors.addAll(v.validate(request)));
    } else if (updatesDeletingObject(request)) {
      whileDeleting.forEach(v -> errors.addAll(v.validateWhileDeleting(request)));
    } else {
      return AdmissionResponse.allowed();
    }
    return errors.isEmpty()
        ? AdmissionResponse.allowed()
        : AdmissionResponse.invalid(request.kind(), request.displayName(), errors);
  }

  private static boolean updatesDeletingObject(AdmissionRequest request) {
    return request.operation() == Operation.UPDATE
        && request.subResource().isEmpty()
        && request.object() != null
        && request.oldObject() != null
        && (KubeObjects.isDeleting(request.object())
            || KubeObjects.isDeleting(request.oldObject()));
  }
}

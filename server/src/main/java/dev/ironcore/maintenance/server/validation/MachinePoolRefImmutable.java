package dev.ironcore.maintenance.server.validation;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.List;

/**
 * {@code spec.machinePoolRef} of an IronCore Machine may be set once and then never changed or
 * cleared (domain reference §2 and §4). Binding an unbound Machine is allowed; on UPDATE of a bound
 * Machine a different or empty {@code spec.machinePoolRef.name} is a Forbidden error at {@code
 * spec.machinePoolRef.name}.
 *
 * <p>Also checked while the Machine is being deleted ({@link #appliesWhileDeleting()}): the
 * controller decides from the binding whether a pool is drained, so rebinding a deleting Machine
 * that still runs on its pool would let the pool be deleted under it. A finalizer-only update
 * leaves the binding as it is and is never denied by this rule.
 */
public final class MachinePoolRefImmutable implements Validator {
  static final String FIELD = "spec.machinePoolRef.name";
  private static final String POINTER = "/spec/machinePoolRef/name";

  /**
   * @return true: the binding stays immutable while the Machine is being deleted
   */
  @Override
  public boolean appliesWhileDeleting() {
    return true;
  }

  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    if (request.operation() != Operation.UPDATE) {
      return List.of();
    }
    String before = KubeObjects.textAt(request.oldObject(), POINTER);
    String after = KubeObjects.textAt(request.object(), POINTER);
    if (before.isEmpty() || before.equals(after)) {
      return List.of();
    }
    String change =
        after.isEmpty() ? "cannot be cleared" : "cannot be changed to \"" + after + "\"";
    return List.of(
        FieldError.forbidden(
            FIELD,
            "the Machine is bound to pool \""
                + before
                + "\"; the binding "
                + change
                + " (spec.machinePoolRef may be set once, then it is immutable)"));
  }
}

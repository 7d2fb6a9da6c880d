package dev.ironcore.maintenance.server.validation;

import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.api.validation.LabelSyntax;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.List;

/**
 * {@code spec.machinePoolRef.name} must be a valid MachinePool name (a lowercase RFC 1123 DNS
 * subdomain, as every cluster-scoped object name): a Machine bound to a name no pool can have gets
 * the poollet finalizer that no poollet would ever remove. Checked when the binding is new (CREATE,
 * or the UPDATE that sets or changes it); an unchanged binding stored before this rule is not
 * checked again, so existing Machines keep working. An unbound Machine is always valid here.
 */
public final class MachinePoolRefName implements Validator {
  static final String FIELD = "spec.machinePoolRef.name";
  private static final String POINTER = "/spec/machinePoolRef/name";

  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    String name = KubeObjects.textAt(request.object(), POINTER);
    if (name.isEmpty()) {
      return List.of();
    }
    if (request.operation() == Operation.UPDATE
        && name.equals(KubeObjects.textAt(request.oldObject(), POINTER))) {
      return List.of();
    }
    List<String> problems = LabelSyntax.dns1123SubdomainErrors(name);
    return problems.isEmpty()
        ? List.of()
        : List.of(
            FieldError.invalid(
                FIELD, name, "not a valid MachinePool name: " + String.join("; ", problems)));
  }
}

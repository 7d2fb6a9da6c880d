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
 * checked again, so existing Machines keep working. An unbound Machine (no {@code
 * spec.machinePoolRef}, or a null one) is always valid here; {@code machinePoolRef: {}} or {@code
 * {name: ""}} is a Required error, as in IronCore's {@code validateMachineSpec}.
 *
 * <p>Also checked while the Machine is being deleted ({@link #appliesWhileDeleting()}): a deleting
 * Machine bound for the first time would otherwise take a name no pool can have, or {@code {}}
 * (fresh eyes: {@code Bad_Name} was accepted and then locked in by {@link
 * MachinePoolRefImmutable}). A finalizer-only update leaves the binding as it is and is never
 * denied by this rule.
 */
public final class MachinePoolRefName implements Validator {
  static final String FIELD = "spec.machinePoolRef.name";
  private static final String POINTER = "/spec/machinePoolRef/name";

  /**
   * @return true: a new binding of a deleting Machine must name a valid pool too
   */
  @Override
  public boolean appliesWhileDeleting() {
    return true;
  }

  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    String name = KubeObjects.textAt(request.object(), POINTER);
    if (name.isEmpty()) {
      return refWithoutName(request.object()) && !hasRef(request.oldObject())
          ? List.of(
              FieldError.required(
                  FIELD,
                  "spec.machinePoolRef is set, so it must name a MachinePool (leave out"
                      + " spec.machinePoolRef for an unbound Machine)"))
          : List.of();
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

  /**
   * True when {@code spec.machinePoolRef} is an object without a name (or an empty one): IronCore
   * counts a non-nil reference as bound and validates its name ({@code validateMachineSpec}), so
   * {@code machinePoolRef: {name: ""}} is refused there; an old object stored that way (before this
   * rule) keeps passing.
   */
  /**
   * True when {@code object} has a {@code spec.machinePoolRef} object: with a name the binding
   * exists ({@link MachinePoolRefImmutable} refuses clearing it), without one it was stored before
   * this rule.
   */
  private static boolean hasRef(com.fasterxml.jackson.databind.JsonNode object) {
    com.fasterxml.jackson.databind.JsonNode ref =
        KubeObjects.member(KubeObjects.member(object, "spec"), "machinePoolRef");
    return ref != null && ref.isObject();
  }

  private static boolean refWithoutName(com.fasterxml.jackson.databind.JsonNode object) {
    return hasRef(object) && KubeObjects.textAt(object, POINTER).isEmpty();
  }
}

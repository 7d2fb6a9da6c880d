package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;

/**
 * Warns (kubectl prints {@code Warning: ...}) when a v1alpha1 UPDATE drops the annotation {@value
 * Names#V1ALPHA2_FIELDS_ANNOTATION} and with it v1alpha2-only members the object had: e.g. a {@code
 * kubectl replace} or a PUT from a tool that owns the whole annotation map, sent without it, turns
 * every {@code tolerationSeconds} toleration into one that tolerates for good. Allowed all the same
 * (removing the annotation is how a v1alpha1 client drops those members on purpose). Never denies;
 * the inner decision stands. Machines only: a MachinePool's {@code timeAdded} is put back by the
 * mutating webhook ({@code TaintTimeAddedMutator} keeps an existing taint's).
 */
public final class DroppedFieldsWarning implements AdmissionHandler {
  private final AdmissionHandler inner;
  private final String pointer;
  private final String path;
  private final String member;
  private final String consequence;

  private DroppedFieldsWarning(
      AdmissionHandler inner, String pointer, String path, String member, String consequence) {
    this.inner = inner;
    this.pointer = pointer;
    this.path = path;
    this.member = member;
    this.consequence = consequence;
  }

  /** For Machines: {@code spec.tolerations[].tolerationSeconds}. */
  public static DroppedFieldsWarning tolerations(AdmissionHandler inner) {
    return new DroppedFieldsWarning(
        inner,
        "/spec/tolerations",
        "spec.tolerations",
        "tolerationSeconds",
        "they now tolerate the taint for good");
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    AdmissionResponse response = inner.handle(request);
    if (!response.isAllowed()
        || request.operation() != Operation.UPDATE
        || request.object() == null
        || request.oldObject() == null
        || !ComputeVersions.V1ALPHA1.equals(request.object().path("apiVersion").asText())
        || !annotated(request.oldObject())
        || annotated(request.object())) {
      return response;
    }
    int before = withMember(ListFieldValidator.asStored(request.oldObject()).at(pointer));
    int after = withMember(ListFieldValidator.asStored(request.object()).at(pointer));
    if (after >= before) {
      return response;
    }
    int dropped = before - after;
    return response.withWarnings(
        "this v1alpha1 update removed the annotation "
            + Names.V1ALPHA2_FIELDS_ANNOTATION
            + ", which keeps the "
            + member
            + " of "
            + path
            + " in v1alpha1: "
            + dropped
            + (dropped == 1 ? " entry loses its " : " entries lose their ")
            + member
            + " ("
            + consequence
            + "); send the annotation back as it was read to keep them, or write "
            + member
            + " in v1alpha2");
  }

  private static boolean annotated(JsonNode object) {
    return object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION);
  }

  private int withMember(JsonNode list) {
    int n = 0;
    for (JsonNode entry : list) {
      if (entry.has(member)) {
        n++;
      }
    }
    return n;
  }
}

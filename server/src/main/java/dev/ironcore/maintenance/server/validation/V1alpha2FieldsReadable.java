package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import java.util.List;
import java.util.Optional;

/**
 * A v1alpha1 write may not bring a {@value Names#V1ALPHA2_FIELDS_ANNOTATION} annotation that is not
 * what down-conversion writes (not JSON, not an object of recorded entries): conversion ignores
 * such a value ({@link ComputeConverter#unreadableAnnotation}), so the v1alpha2 fields the client
 * meant to keep in it would be lost without a word. Refused as {@code
 * metadata.annotations[maintenance.ironcore.dev/v1alpha2-fields]: Invalid value: "not json": ...}.
 *
 * <p>An UPDATE that keeps the value its old object had is allowed ("ratcheting", as {@link
 * ListFieldValidator} does for list entries): such a value was stored before our webhooks (while
 * the CRD served only v1alpha1), and denying every later write of the object would keep its owner
 * from labelling, repairing or releasing it. Removing or replacing it by a readable value is always
 * allowed. v1alpha2 writes are not judged: the annotation is reserved there, and conversion ignores
 * an unreadable one in either direction.
 */
public final class V1alpha2FieldsReadable implements Validator {
  /** The field path of the annotation, as Kubernetes names a map key. */
  static final String FIELD = "metadata.annotations[" + Names.V1ALPHA2_FIELDS_ANNOTATION + "]";

  private final String list;
  private final String member;

  private V1alpha2FieldsReadable(String list, String member) {
    this.list = list;
    this.member = member;
  }

  /**
   * @return the rule for Machines (the annotation keeps {@code
   *     spec.tolerations[].tolerationSeconds})
   */
  public static V1alpha2FieldsReadable tolerations() {
    return new V1alpha2FieldsReadable("tolerations", "tolerationSeconds");
  }

  /**
   * @return the rule for MachinePools (the annotation keeps {@code spec.taints[].timeAdded})
   */
  public static V1alpha2FieldsReadable taints() {
    return new V1alpha2FieldsReadable("taints", "timeAdded");
  }

  /**
   * @param request a CREATE or UPDATE of a Machine or MachinePool
   * @return one Invalid error when the request is in v1alpha1, its object's annotation is
   *     unreadable, and (UPDATE) the old object did not have the same value; else none
   */
  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    JsonNode object = request.object();
    if (object == null || !ComputeVersions.V1ALPHA1.equals(object.path("apiVersion").asText())) {
      return List.of();
    }
    Optional<String> problem = ComputeConverter.unreadableAnnotation(object);
    if (problem.isEmpty()) {
      return List.of();
    }
    JsonNode value = annotation(object);
    if (request.operation() == Operation.UPDATE
        && request.oldObject() != null
        && value.equals(annotation(request.oldObject()))) {
      return List.of();
    }
    return List.of(
        FieldError.invalid(
            FIELD,
            value,
            "not what a v1alpha1 read shows there ("
                + problem.get()
                + "): it keeps the "
                + member
                + " of spec."
                + list
                + " as a JSON object such as {\""
                + list
                + "\":[{\"index\":0,\"entry\":{...}}]}, and conversion ignores any other value,"
                + " so nothing in it would be kept; remove it, or write "
                + member
                + " in v1alpha2"));
  }

  private static JsonNode annotation(JsonNode object) {
    return object.path("metadata").path("annotations").path(Names.V1ALPHA2_FIELDS_ANNOTATION);
  }
}

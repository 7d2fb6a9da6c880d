package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AnnotationBytes;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import dev.ironcore.maintenance.server.conversion.ConversionException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A Machine or MachinePool must stay readable in v1alpha1, the version IronCore's own clients (the
 * machinepoollet, the scheduler) read. Its v1alpha1 form carries the v1alpha2-only list members in
 * the annotation {@value Names#V1ALPHA2_FIELDS_ANNOTATION}, and the API server refuses a converted
 * object whose annotations total more than 256 KiB (Kubernetes {@code ValidateAnnotationsSize}: the
 * UTF-8 bytes of every key and value), which fails every v1alpha1 get, list and watch that includes
 * the object ({@code conversion webhook ... returned invalid metadata: metadata.annotation: Too
 * long}): one object a tenant can create would stop every v1alpha1 Machine watch of the cluster.
 * Such a write is refused here instead, naming the list: e.g. 3,200 tolerations with {@code
 * tolerationSeconds}, or a MachinePool of 1,300 {@code NoExecute} taints (whose {@code timeAdded}
 * the mutating webhook sets).
 *
 * <p>Only objects with v1alpha2-only members are converted to be measured; an UPDATE that does not
 * make the v1alpha1 annotations larger is allowed (so an object stored over the limit before this
 * rule can be shrunk).
 */
public final class V1alpha1AnnotationsFit implements Validator {
  /** Kubernetes' {@code TotalAnnotationSizeLimitB}: 256 KiB. */
  static final long LIMIT_BYTES = AnnotationBytes.LIMIT;

  private final String pointer;
  private final String path;
  private final String member;

  private V1alpha1AnnotationsFit(String pointer, String path, String member) {
    this.pointer = pointer;
    this.path = path;
    this.member = member;
  }

  /**
   * @return the rule for Machines ({@code spec.tolerations[].tolerationSeconds})
   */
  public static V1alpha1AnnotationsFit tolerations() {
    return new V1alpha1AnnotationsFit("/spec/tolerations", "spec.tolerations", "tolerationSeconds");
  }

  /**
   * @return the rule for MachinePools ({@code spec.taints[].timeAdded})
   */
  public static V1alpha1AnnotationsFit taints() {
    return new V1alpha1AnnotationsFit("/spec/taints", "spec.taints", "timeAdded");
  }

  /**
   * @return true: an object being deleted (held by a finalizer) must stay readable in v1alpha1 too;
   *     a finalizer-only update never grows its annotations, so it is never denied by this rule
   */
  @Override
  public boolean appliesWhileDeleting() {
    return true;
  }

  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    Sizes sizes = v1alpha1AnnotationBytes(request.object());
    if (sizes.total() <= LIMIT_BYTES) {
      return List.of();
    }
    Sizes before =
        request.operation() == Operation.UPDATE && request.oldObject() != null
            ? v1alpha1AnnotationBytes(request.oldObject())
            : null;
    if (before != null && sizes.total() <= before.total()) {
      return List.of();
    }
    // the part that grew is the one to blame (on CREATE the larger one): the list's members, or
    // the object's own annotations
    long own = sizes.total() - sizes.fields();
    boolean ownGrew = before != null ? sizes.fields() <= before.fields() : own > sizes.fields();
    return List.of(
        FieldError.forbidden(
            ownGrew ? "metadata.annotations" : path,
            "in v1alpha1, which IronCore's clients read, this object's annotations would total "
                + sizes.total()
                + " bytes, more than the "
                + LIMIT_BYTES
                + " Kubernetes allows: "
                + Names.V1ALPHA2_FIELDS_ANNOTATION
                + " keeps the "
                + member
                + " of "
                + path
                + " there ("
                + sizes.fields()
                + " bytes; the other annotations "
                + own
                + "), and the API server would fail every v1alpha1 read, list and watch that"
                + " includes the object; "
                + (ownGrew
                    ? "use fewer or shorter annotations, or fewer entries with " + member
                    : "use fewer or shorter entries with " + member)));
  }

  /**
   * Bytes of the annotations of an object read in v1alpha1.
   *
   * @param total all of them (keys and values, UTF-8)
   * @param fields those of {@link Names#V1ALPHA2_FIELDS_ANNOTATION} (key and value)
   */
  private record Sizes(long total, long fields) {}

  /**
   * @return the bytes of the annotations of {@code object} read in v1alpha1; 0 when it has no
   *     v1alpha2-only member in the list nor (in v1alpha1) the annotation (its annotations are then
   *     its own, which the API server checks) or cannot be converted (the conversion's own error
   *     reports that)
   */
  private Sizes v1alpha1AnnotationBytes(JsonNode object) {
    boolean v1alpha1 = ComputeVersions.V1ALPHA1.equals(object.path("apiVersion").asText());
    if (!hasMember(object.at(pointer))
        && !(v1alpha1
            && object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION))) {
      return new Sizes(0, 0);
    }
    JsonNode v1;
    try {
      v1 =
          ComputeConverter.convert(
              v1alpha1 ? ListFieldValidator.asStored(object) : object, ComputeVersions.V1ALPHA1);
    } catch (ConversionException e) {
      return new Sizes(0, 0);
    }
    long bytes = 0;
    long fields = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it =
            v1.path("metadata").path("annotations").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> annotation = it.next();
      long size = AnnotationBytes.of(annotation.getKey(), annotation.getValue().asText());
      bytes += size;
      if (annotation.getKey().equals(Names.V1ALPHA2_FIELDS_ANNOTATION)) {
        fields = size;
      }
    }
    return new Sizes(bytes, fields);
  }

  private boolean hasMember(JsonNode list) {
    for (JsonNode entry : list) {
      if (entry.has(member)) {
        return true;
      }
    }
    return false;
  }
}

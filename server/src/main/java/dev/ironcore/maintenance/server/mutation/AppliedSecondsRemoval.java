package dev.ironcore.maintenance.server.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.JsonPointer;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import dev.ironcore.maintenance.server.conversion.ConversionException;
import java.math.BigDecimal;
import java.util.Comparator;

/**
 * Part of the Machine mutation, for {@code kubectl apply} of v1alpha1 manifests: a toleration whose
 * {@code tolerationSeconds} the previous manifest gave and this one no longer gives loses them, as
 * the same apply of a v1alpha2 manifest does. A v1alpha1 read shows a toleration's seconds in the
 * annotation {@value Names#V1ALPHA2_FIELDS_ANNOTATION}, not on the entry, so kubectl's patch left
 * the annotation as read and up-conversion put the seconds back: kubectl said {@code configured},
 * the manifest, the v1alpha1 read and {@code kubectl diff} all showed a toleration for good, and
 * the Machine was evicted once the seconds had passed (fresh eyes, session 51).
 *
 * <p>Which entries: the manifests are kubectl's annotation {@value #LAST_APPLIED} of {@code
 * oldObject} (the previous apply) and {@code object} (this one), on a v1alpha1 UPDATE that changes
 * it. A toleration of the object as it will be stored (up-converted) that has {@code
 * tolerationSeconds} loses them when the previous manifest has that toleration with them and this
 * manifest has it without them, and not with them (entries compared whole, numbers by value). Every
 * other write is left as it is: to {@code kubectl edit} or {@code replace}, typed clients,
 * server-side apply (which keeps no such annotation) or an apply whose manifest kept the entry as
 * it was, an entry without seconds in v1alpha1 is what a read showed.
 *
 * <p>The patch sets {@code spec.tolerations} and the annotation to what down-conversion writes for
 * that result, so the stored object is exactly the result; the validating webhook's {@code
 * DroppedFieldsWarning} then tells kubectl how many entries lost their seconds.
 */
final class AppliedSecondsRemoval {
  /** kubectl's record of the manifest it applied last (client-side apply). */
  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  private static final String SECONDS = "tolerationSeconds";

  /** JSON equality with numbers compared by value ({@code 5} as int or long is one value). */
  private static final Comparator<JsonNode> BY_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return decimal(a).compareTo(decimal(b));
        }
        return a.equals(b) ? 0 : 1;
      };

  private AppliedSecondsRemoval() {}

  /**
   * @param request a Machine's admission request, its objects holding at least {@code metadata} and
   *     {@code spec.tolerations}
   * @return the patch that removes the seconds the manifest stopped giving; empty when none
   */
  static JsonPatch patch(AdmissionRequest request) {
    JsonNode object = request.object();
    JsonNode oldObject = request.oldObject();
    if (request.operation() != Operation.UPDATE
        || object == null
        || oldObject == null
        || !ComputeVersions.V1ALPHA1.equals(object.path("apiVersion").asText())
        || !object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION)) {
      return JsonPatch.empty();
    }
    JsonNode applied = manifest(object);
    JsonNode before = manifest(oldObject);
    if (applied == null || before == null || applied.equals(before)) {
      return JsonPatch.empty();
    }
    ObjectNode stored;
    try {
      stored = ComputeConverter.convert(object, ComputeVersions.V1ALPHA2);
    } catch (ConversionException e) {
      return JsonPatch.empty(); // the validating webhook names what is wrong with it
    }
    boolean changed = false;
    for (JsonNode entry : stored.at("/spec/tolerations")) {
      if (entry instanceof ObjectNode toleration && toleration.has(SECONDS)) {
        ObjectNode without = toleration.deepCopy().without(SECONDS);
        if (has(before, toleration) && has(applied, without) && !has(applied, toleration)) {
          toleration.remove(SECONDS);
          changed = true;
        }
      }
    }
    if (!changed) {
      return JsonPatch.empty();
    }
    ObjectNode result;
    try {
      result = ComputeConverter.convert(stored, ComputeVersions.V1ALPHA1);
    } catch (ConversionException e) {
      return JsonPatch.empty();
    }
    String annotation = JsonPointer.of("metadata", "annotations", Names.V1ALPHA2_FIELDS_ANNOTATION);
    JsonNode kept =
        result.path("metadata").path("annotations").get(Names.V1ALPHA2_FIELDS_ANNOTATION);
    JsonPatch.Builder patch =
        JsonPatch.builder().replace("/spec/tolerations", result.at("/spec/tolerations"));
    return (kept == null ? patch.remove(annotation) : patch.add(annotation, kept)).build();
  }

  /** The manifest of kubectl's last apply recorded on {@code object}; null when none or unread. */
  private static JsonNode manifest(JsonNode object) {
    JsonNode text = object.path("metadata").path("annotations").get(LAST_APPLIED);
    if (text == null || !text.isTextual()) {
      return null;
    }
    try {
      return dev.ironcore.maintenance.api.json.JsonMappers.shared().readTree(text.asText());
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    }
  }

  /** Whether the manifest's {@code spec.tolerations} holds {@code entry}. */
  private static boolean has(JsonNode manifest, JsonNode entry) {
    for (JsonNode candidate : manifest.path("spec").path("tolerations")) {
      if (candidate.equals(BY_VALUE, entry)) {
        return true;
      }
    }
    return false;
  }

  private static BigDecimal decimal(JsonNode number) {
    return number.decimalValue();
  }
}

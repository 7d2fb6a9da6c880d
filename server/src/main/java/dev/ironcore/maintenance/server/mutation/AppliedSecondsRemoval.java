package dev.ironcore.maintenance.server.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.json.HashKey;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.JsonPointer;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TokenAllowance;
import dev.ironcore.maintenance.server.admission.TokenCountingParser;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import dev.ironcore.maintenance.server.conversion.ConversionException;
import java.util.HashSet;
import java.util.Set;

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
 * it, each read as it would be stored (a v1alpha1 manifest up-converted: one that carries the
 * annotation, e.g. a read saved and applied again, gives the seconds the annotation keeps). A
 * toleration of the object as it will be stored (up-converted) that has {@code tolerationSeconds}
 * loses them when the previous manifest has that toleration with them and this manifest has it
 * without them, and not with them (entries compared whole). Every other write is left as it is: to
 * {@code kubectl edit}, typed clients or an apply whose manifest kept the entry as it was, an entry
 * without seconds in v1alpha1 is what a read showed. The API server keeps {@value #LAST_APPLIED}
 * current for {@code kubectl replace} and for kubectl's server-side apply where one is there, so
 * those count as applies of their manifest. A manifest, or the object's annotation, over 256 KiB
 * (the API server refuses such annotations) or over {@link #MAX_MANIFEST_TOKENS} JSON tokens is not
 * read: the write is left as it is.
 *
 * <p>The patch sets {@code spec.tolerations} and the annotation to what down-conversion writes for
 * that result, so the stored object is exactly the result; the validating webhook's {@code
 * DroppedFieldsWarning} then tells kubectl how many entries lost their seconds, and why.
 */
final class AppliedSecondsRemoval {
  /** kubectl's record of the manifest it applied last ({@link Names#LAST_APPLIED_ANNOTATION}). */
  static final String LAST_APPLIED = Names.LAST_APPLIED_ANNOTATION;

  /**
   * Kubernetes' {@code TotalAnnotationSizeLimitB}: 256 KiB. The mutating webhooks see a write
   * before the API server checks it, so a longer annotation can reach them; it is never stored.
   */
  private static final int MAX_ANNOTATION_CHARS = 256 * 1024;

  /**
   * Most JSON tokens a manifest is read with: 65,536 (about 5 MB of tree; a Machine's manifest
   * holds a few hundred), so that a manifest of many small values cannot take the heap.
   */
  static final long MAX_MANIFEST_TOKENS = 65_536;

  private static final TokenAllowance MANIFEST =
      tokens -> {
        if (tokens > MAX_MANIFEST_TOKENS) {
          throw new TokenAllowance.Refused("manifest too large", true);
        }
        return MAX_MANIFEST_TOKENS;
      };

  private static final String SECONDS = "tolerationSeconds";

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
        || object
                .path("metadata")
                .path("annotations")
                .path(Names.V1ALPHA2_FIELDS_ANNOTATION)
                .asText()
                .length()
            > MAX_ANNOTATION_CHARS
        || !object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION)) {
      return JsonPatch.empty();
    }
    String appliedText = lastApplied(object);
    String beforeText = lastApplied(oldObject);
    if (appliedText == null || beforeText == null || appliedText.equals(beforeText)) {
      return JsonPatch.empty();
    }
    Set<HashKey.Json> applied = storedTolerations(appliedText);
    Set<HashKey.Json> before = storedTolerations(beforeText);
    if (applied == null || before == null) {
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
        if (before.contains(new HashKey.Json(toleration))
            && applied.contains(new HashKey.Json(without))
            && !applied.contains(new HashKey.Json(toleration))) {
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

  /** kubectl's record on {@code object}; null when none, not text or over 256 KiB. */
  static String lastApplied(JsonNode object) {
    JsonNode text = object.path("metadata").path("annotations").get(LAST_APPLIED);
    return text == null || !text.isTextual() || text.asText().length() > MAX_ANNOTATION_CHARS
        ? null
        : text.asText();
  }

  /**
   * The tolerations a manifest gives, as they would be stored: a v1alpha1 manifest up-converted.
   *
   * @return null when the manifest cannot be read (not JSON, too many tokens, not a Machine)
   */
  private static Set<HashKey.Json> storedTolerations(String manifestText) {
    JsonNode manifest;
    try (com.fasterxml.jackson.core.JsonParser parser =
        TokenCountingParser.wrap(
            dev.ironcore.maintenance.api.json.JsonMappers.shared().createParser(manifestText),
            MANIFEST)) {
      manifest = dev.ironcore.maintenance.api.json.JsonMappers.shared().readTree(parser);
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    }
    if (manifest == null || !manifest.isObject()) {
      return null;
    }
    if (ComputeVersions.V1ALPHA1.equals(manifest.path("apiVersion").asText())) {
      try {
        manifest = ComputeConverter.convert(manifest, ComputeVersions.V1ALPHA2);
      } catch (ConversionException | RuntimeException e) {
        return null;
      }
    }
    Set<HashKey.Json> tolerations = new HashSet<>();
    for (JsonNode entry : manifest.path("spec").path("tolerations")) {
      tolerations.add(new HashKey.Json(entry));
    }
    return tolerations;
  }
}

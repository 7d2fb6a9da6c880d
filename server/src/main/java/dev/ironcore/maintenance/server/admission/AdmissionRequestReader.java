package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;

/**
 * Strict reading of {@code AdmissionReview.request} into an {@link AdmissionRequest}. The API
 * server never sends the malformed shapes rejected here, but a bad review must get a clear error
 * naming the field (answered as a 400 errored review), never a silent allow or a patch that cannot
 * apply. JSON {@code null} counts as absent everywhere.
 *
 * <p>Rejected, checked in this order: no {@code request} object; {@code uid} absent, empty or not a
 * string; {@code operation} not one of the four; {@code kind} absent, not an object, or without
 * string {@code kind}/{@code version} ({@code group} may be empty: the core group); {@code
 * subResource}, {@code name}, {@code namespace} not strings; {@code dryRun} not a boolean; {@code
 * object} or {@code oldObject} present but not a JSON object, or with {@code metadata} present but
 * not an object, or with {@code metadata.finalizers} not an array or {@code metadata.labels}/{@code
 * metadata.annotations} not objects; CREATE or UPDATE without {@code object}; UPDATE without {@code
 * oldObject}.
 */
final class AdmissionRequestReader {
  private static final List<String> METADATA_OBJECTS = List.of("labels", "annotations");

  private AdmissionRequestReader() {}

  /**
   * @throws MalformedReviewException naming the first field that is wrong
   */
  static AdmissionRequest read(JsonNode review) {
    JsonNode request = KubeObjects.member(review, "request");
    if (request == null || request.isNull()) {
      throw new MalformedReviewException("AdmissionReview has no request object");
    }
    if (!request.isObject()) {
      // fresh eyes (session 46): "request":"x" was answered "has no request object"
      throw new MalformedReviewException("request must be a JSON object, got " + type(request));
    }
    String uid = requiredString(request, "uid", "request.uid");
    Operation operation =
        Operation.parse(requiredString(request, "operation", "request.operation"));
    GroupVersionKind kind = kind(request);
    JsonNode object = kubeObject(request, "object");
    JsonNode oldObject = kubeObject(request, "oldObject");
    if (object == null && (operation == Operation.CREATE || operation == Operation.UPDATE)) {
      throw new MalformedReviewException("request.object is required for " + operation);
    }
    if (oldObject == null && operation == Operation.UPDATE) {
      throw new MalformedReviewException("request.oldObject is required for UPDATE");
    }
    JsonNode dryRun = KubeObjects.member(request, "dryRun");
    if (dryRun != null && !dryRun.isBoolean()) {
      throw new MalformedReviewException("request.dryRun must be a boolean, got " + type(dryRun));
    }
    return new AdmissionRequest(
        uid,
        kind,
        GroupVersionResource.of(request.get("resource")),
        optionalString(request, "subResource", "request.subResource"),
        operation,
        optionalString(request, "name", "request.name"),
        optionalString(request, "namespace", "request.namespace"),
        object,
        oldObject,
        dryRun != null && dryRun.asBoolean(),
        KubeObjects.textAt(request, "/userInfo/username"),
        ObjectDepthParser.UNKNOWN,
        ObjectDepthParser.UNKNOWN);
  }

  private static GroupVersionKind kind(JsonNode request) {
    JsonNode kind = KubeObjects.member(request, "kind");
    if (kind == null) {
      throw new MalformedReviewException(
          "request.kind is missing (want {group, version, kind} of the object)");
    }
    if (!kind.isObject()) {
      throw new MalformedReviewException(
          "request.kind must be an object {group, version, kind}, got " + type(kind));
    }
    return new GroupVersionKind(
        optionalString(kind, "group", "request.kind.group"),
        requiredString(kind, "version", "request.kind.version"),
        requiredString(kind, "kind", "request.kind.kind"));
  }

  /**
   * @return the Kubernetes object at {@code field}, or null when absent or JSON null
   */
  private static JsonNode kubeObject(JsonNode request, String field) {
    JsonNode object = KubeObjects.member(request, field);
    if (object == null) {
      return null;
    }
    String path = "request." + field;
    if (!object.isObject()) {
      throw new MalformedReviewException(path + " must be a JSON object, got " + type(object));
    }
    JsonNode metadata = object.get("metadata");
    if (metadata == null) {
      return object;
    }
    if (!metadata.isObject()) {
      throw new MalformedReviewException(
          path + ".metadata must be a JSON object, got " + type(metadata));
    }
    JsonNode finalizers = KubeObjects.member(metadata, "finalizers");
    if (finalizers != null && !finalizers.isArray()) {
      throw new MalformedReviewException(
          path + ".metadata.finalizers must be an array, got " + type(finalizers));
    }
    for (String map : METADATA_OBJECTS) {
      JsonNode value = KubeObjects.member(metadata, map);
      if (value != null && !value.isObject()) {
        throw new MalformedReviewException(
            path + ".metadata." + map + " must be a JSON object, got " + type(value));
      }
    }
    return object;
  }

  private static String requiredString(JsonNode node, String field, String path) {
    JsonNode value = KubeObjects.member(node, field);
    if (value == null) {
      throw new MalformedReviewException(path + " is missing");
    }
    if (!value.isTextual()) {
      throw new MalformedReviewException(path + " must be a string, got " + type(value));
    }
    if (value.asText().isEmpty()) {
      throw new MalformedReviewException(path + " must not be empty");
    }
    return value.asText();
  }

  private static String optionalString(JsonNode node, String field, String path) {
    JsonNode value = KubeObjects.member(node, field);
    if (value == null) {
      return "";
    }
    if (!value.isTextual()) {
      throw new MalformedReviewException(path + " must be a string, got " + type(value));
    }
    return value.asText();
  }

  /**
   * @return the JSON type in words, e.g. {@code a number}
   */
  private static String type(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT, POJO -> "an object";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
    };
  }
}

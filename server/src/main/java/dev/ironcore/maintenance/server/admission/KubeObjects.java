package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** Null-safe reads of Kubernetes objects held as Jackson trees. */
public final class KubeObjects {
  private KubeObjects() {}

  /**
   * @param node an object node, or null
   * @param field a member name
   * @return the member's text, or {@code ""} when node/member is absent, null or not a string
   */
  public static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isTextual() ? value.asText() : "";
  }

  /**
   * @param node an object node, or null
   * @param pointer an RFC 6901 pointer, e.g. {@code "/spec/machinePoolRef/name"}
   * @return the text there, or {@code ""} when absent, null or not a string
   */
  public static String textAt(JsonNode node, String pointer) {
    if (node == null) {
      return "";
    }
    JsonNode value = node.at(pointer);
    return value.isTextual() ? value.asText() : "";
  }

  /**
   * @return the member, or Java null when it is absent or JSON null
   */
  public static JsonNode member(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value == null || value.isNull() ? null : value;
  }

  /**
   * Whether the object is being deleted. "Set" means present and not JSON null, whatever its type
   * or value: the API server only ever sends an RFC 3339 string, and for anything else we err on
   * the side the domain rule protects (domain reference §4: never add a finalizer to, nor deny the
   * finalizer removal of, an object that may be deleting). This is also what CEL's {@code
   * has(object.metadata.deletionTimestamp)} in the webhook manifests' match condition answers.
   *
   * @param object a Kubernetes object, or null
   * @return true when {@code metadata.deletionTimestamp} is set
   */
  public static boolean isDeleting(JsonNode object) {
    if (object == null) {
      return false;
    }
    JsonNode timestamp = object.at("/metadata/deletionTimestamp");
    return !timestamp.isMissingNode() && !timestamp.isNull();
  }

  /**
   * @param object a Kubernetes object, or null
   * @return {@code metadata.labels} as a map; string values only; empty when absent
   */
  public static Map<String, String> labels(JsonNode object) {
    Map<String, String> labels = new LinkedHashMap<>();
    JsonNode node = object == null ? null : object.at("/metadata/labels");
    if (node != null && node.isObject()) {
      node.properties()
          .forEach(
              e -> {
                if (e.getValue().isTextual()) {
                  labels.put(e.getKey(), e.getValue().asText());
                }
              });
    }
    return labels;
  }
}

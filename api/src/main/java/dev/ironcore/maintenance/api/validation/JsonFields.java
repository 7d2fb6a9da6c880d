package dev.ironcore.maintenance.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Reads the members the validators check from JSON, reporting a wrong JSON type as an Invalid
 * error.
 */
final class JsonFields {
  private JsonFields() {}

  /**
   * @param object an object node
   * @param member a member name, e.g. {@code key}
   * @param path the member's field path for errors, e.g. {@code spec.taints[0].key}
   * @param errors where an Invalid error is added when the member is present but not a string
   * @return the string; {@code ""} when absent or null; null when it has another type
   */
  static String string(JsonNode object, String member, String path, List<FieldError> errors) {
    JsonNode value = object.get(member);
    if (value == null || value.isNull()) {
      return "";
    }
    if (!value.isTextual()) {
      errors.add(FieldError.invalid(path, value, "must be a string"));
      return null;
    }
    return value.asText();
  }

  /**
   * @param list a list field, or null / JSON null when absent
   * @param path its field path, e.g. {@code spec.taints}
   * @param what what each item is, for the message, e.g. {@code "taints"}
   * @param errors where an Invalid error is added when it is not an array
   * @return whether there are items to check
   */
  static boolean isCheckableList(JsonNode list, String path, String what, List<FieldError> errors) {
    if (list == null || list.isNull() || list.isMissingNode()) {
      return false;
    }
    if (!list.isArray()) {
      errors.add(FieldError.invalid(path, list, "must be a list of " + what));
      return false;
    }
    return true;
  }

  /**
   * @return whether {@code item} is an object; otherwise adds an Invalid error at {@code path}
   */
  static boolean isObject(JsonNode item, String path, String shape, List<FieldError> errors) {
    if (item.isObject()) {
      return true;
    }
    errors.add(FieldError.invalid(path, item, "must be an object " + shape));
    return false;
  }
}

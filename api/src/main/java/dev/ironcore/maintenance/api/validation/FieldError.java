package dev.ironcore.maintenance.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One validation error in the shape of Kubernetes' {@code field.Error}, so that kubectl prints it
 * like built-in validation, e.g. {@code spec.taints[1].effect: Unsupported value: "Later":
 * supported values: "NoSchedule", "NoExecute"}. Returned by the pure validators of this package and
 * by the webhook server's rules, which deny with them as {@code details.causes}.
 *
 * @param field field path, e.g. {@code spec.taints[1].effect}
 * @param type kind of error
 * @param badValue the offending value (String, Number, Boolean, JsonNode or null); not shown for
 *     {@link Type#REQUIRED} and {@link Type#FORBIDDEN}
 * @param detail explanation, may be empty
 */
public record FieldError(String field, Type type, Object badValue, String detail) {
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  /** Error kinds; names and cause types as in Kubernetes {@code field.ErrorType}. */
  public enum Type {
    REQUIRED("Required value", "FieldValueRequired"),
    INVALID("Invalid value", "FieldValueInvalid"),
    NOT_SUPPORTED("Unsupported value", "FieldValueNotSupported"),
    DUPLICATE("Duplicate value", "FieldValueDuplicate"),
    FORBIDDEN("Forbidden", "FieldValueForbidden");

    private final String text;
    private final String causeType;

    Type(String text, String causeType) {
      this.text = text;
      this.causeType = causeType;
    }

    /**
     * @return the words kubectl shows, e.g. {@code "Unsupported value"}
     */
    public String text() {
      return text;
    }

    /**
     * @return the {@code details.causes[].reason}, e.g. {@code "FieldValueNotSupported"}
     */
    public String causeType() {
      return causeType;
    }
  }

  public FieldError {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(type, "type");
    detail = detail == null ? "" : detail;
  }

  /**
   * @return a Required error: the field must be set
   */
  public static FieldError required(String field, String detail) {
    return new FieldError(field, Type.REQUIRED, null, detail);
  }

  /**
   * @return an Invalid error for {@code badValue}
   */
  public static FieldError invalid(String field, Object badValue, String detail) {
    return new FieldError(field, Type.INVALID, badValue, detail);
  }

  /**
   * @return an Unsupported value error listing the supported values
   */
  public static FieldError notSupported(String field, Object badValue, List<String> supported) {
    String detail =
        supported.isEmpty()
            ? ""
            : "supported values: "
                + supported.stream().map(FieldError::quote).collect(Collectors.joining(", "));
    return new FieldError(field, Type.NOT_SUPPORTED, badValue, detail);
  }

  /**
   * @return a Duplicate value error
   */
  public static FieldError duplicate(String field, Object badValue) {
    return duplicate(field, badValue, "");
  }

  /**
   * @return a Duplicate value error with an explanation, e.g. what must be unique
   */
  public static FieldError duplicate(String field, Object badValue, String detail) {
    return new FieldError(field, Type.DUPLICATE, badValue, detail);
  }

  /**
   * @return a Forbidden error: the change or value is not allowed
   */
  public static FieldError forbidden(String field, String detail) {
    return new FieldError(field, Type.FORBIDDEN, null, detail);
  }

  /**
   * @return the text after the field path, as Kubernetes' {@code ErrorBody}: e.g. {@code Invalid
   *     value: "x": detail} or {@code Forbidden: detail}
   */
  public String message() {
    StringBuilder s = new StringBuilder(type.text());
    if (type != Type.REQUIRED && type != Type.FORBIDDEN) {
      s.append(": ").append(render(badValue));
    }
    if (!detail.isEmpty()) {
      s.append(": ").append(detail);
    }
    return s.toString();
  }

  /**
   * @return {@code field + ": " + message()}
   */
  @Override
  public String toString() {
    return field + ": " + message();
  }

  /**
   * @return the status cause {@code {reason, message, field}}
   */
  public ObjectNode toCause() {
    ObjectNode cause = MAPPER.createObjectNode();
    cause.put("reason", type.causeType());
    cause.put("message", message());
    cause.put("field", field);
    return cause;
  }

  /**
   * Longest bad value shown: its first 256 characters (a string's, before it is quoted and escaped;
   * another value's JSON). A longer one is cut and its length given, so that a reply or log line
   * stays small however large the value (a fresh-eyes check sent a taint key of 600,000 characters;
   * each error showed it twice in the reply, in the message and in its cause).
   */
  public static final int MAX_SHOWN_VALUE_CHARS = Excerpt.MAX_CHARS;

  private static String render(Object value) {
    if (value == null) {
      return quote("null");
    }
    if (value instanceof JsonNode node) {
      return node.isTextual() ? quoteShort(node.asText()) : Excerpt.of(json(node));
    }
    if (value instanceof Number || value instanceof Boolean) {
      return Excerpt.of(value.toString());
    }
    if (value instanceof CharSequence text) {
      return quoteShort(text.toString());
    }
    return Excerpt.of(json(MAPPER.valueToTree(value)));
  }

  /**
   * {@code node}'s JSON with our limits ({@code JsonNode.toString()} stops at Jackson's default
   * 1,000 levels, and a bad value may nest as deep as the API server reads).
   */
  private static String json(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return "(a value that cannot be shown: " + e.getOriginalMessage() + ")";
    }
  }

  private static String quoteShort(String text) {
    return text.length() <= MAX_SHOWN_VALUE_CHARS
        ? quote(text)
        : quote(text.substring(0, MAX_SHOWN_VALUE_CHARS)) + Excerpt.truncated(text.length());
  }

  private static String quote(String text) {
    return MAPPER.getNodeFactory().textNode(text).toString();
  }
}

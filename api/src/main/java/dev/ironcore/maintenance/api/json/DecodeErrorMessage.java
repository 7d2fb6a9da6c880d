package dev.ironcore.maintenance.api.json;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why an object could not be decoded, in one line an operator can act on: the Kubernetes field path
 * and what was expected against what is stored, e.g. {@code spec.tolerations[0].tolerationSeconds:
 * expected an integer, got "30s"} or {@code spec.tolerations: expected a list, got an object}
 * (instead of Jackson's message with Java class names and a redacted source location). Anything
 * else is Jackson's own message without its location, after the path when there is one.
 */
final class DecodeErrorMessage {
  private static final Pattern FROM = Pattern.compile("from (\\w[\\w-]*) value");
  private static final int VALUE_CHARS = 40;

  private DecodeErrorMessage() {}

  /** The one-line message for a decoding failure {@code e} of a resource (path from its root). */
  static String of(Exception e) {
    if (!(e instanceof JsonMappingException jme)) {
      return oneLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
    String path = path(jme.getPath());
    String reason = reason(jme);
    return path.isEmpty() ? reason : path + ": " + reason;
  }

  /** {@code spec.tolerations[0].tolerationSeconds} from Jackson's references. */
  static String path(List<JsonMappingException.Reference> references) {
    StringBuilder b = new StringBuilder();
    for (JsonMappingException.Reference r : references) {
      if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      } else if (r.getFieldName() != null) {
        if (b.length() > 0) {
          b.append('.');
        }
        b.append(r.getFieldName());
      }
    }
    return b.toString();
  }

  private static String reason(JsonMappingException e) {
    if (e instanceof InvalidFormatException ife && ife.getTargetType() != null) {
      return "expected " + kind(ife.getTargetType()) + ", got " + value(ife.getValue());
    }
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    if (e instanceof MismatchedInputException mie && mie.getTargetType() != null) {
      Matcher m = FROM.matcher(original);
      if (m.find()) {
        return "expected " + kind(mie.getTargetType()) + ", got " + jsonKind(m.group(1));
      }
    }
    return oneLine(original);
  }

  /** What JSON a Java target type reads: {@code an integer}, {@code a list}, ... */
  static String kind(Class<?> type) {
    if (type == Long.class
        || type == long.class
        || type == Integer.class
        || type == int.class
        || type == Short.class
        || type == short.class
        || type == BigInteger.class) {
      return "an integer";
    }
    if (type == Double.class
        || type == double.class
        || type == Float.class
        || type == float.class
        || type == BigDecimal.class) {
      return "a number";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "a boolean";
    }
    if (type.isArray() || Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (type.isEnum()) {
      return "one of its allowed values";
    }
    return Map.class.isAssignableFrom(type) || !type.getName().startsWith("java.")
        ? "an object"
        : "a " + type.getSimpleName();
  }

  /** Jackson's name of the JSON value it met ({@code from Object value}) as a user reads it. */
  private static String jsonKind(String jackson) {
    switch (jackson) {
      case "Object":
        return "an object";
      case "Array":
        return "a list";
      case "String":
        return "a string";
      case "Integer":
      case "Floating-point":
        return "a number";
      case "Boolean":
        return "a boolean";
      default:
        return jackson.toLowerCase(java.util.Locale.ROOT) + " value";
    }
  }

  private static String value(Object v) {
    if (v == null) {
      return "null";
    }
    String s = v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
    return s.length() <= VALUE_CHARS ? s : s.substring(0, VALUE_CHARS) + "...";
  }

  private static String oneLine(String message) {
    int at = message.indexOf(" at [Source:");
    String m = at >= 0 ? message.substring(0, at) : message;
    return m.replaceAll("\\s+", " ").trim();
  }
}

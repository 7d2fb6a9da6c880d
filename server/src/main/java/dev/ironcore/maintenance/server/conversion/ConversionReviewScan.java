package dev.ironcore.maintenance.server.conversion;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * What a ConversionReview body holds where {@link ConversionReviews} looks, read token by token
 * without building a tree of it: the top-level {@code apiVersion} and {@code kind}, the {@code
 * request} object's {@code uid} and {@code desiredAPIVersion}, and where its {@code objects} array
 * starts (a byte offset into the body), so that the objects can then be read and converted one at a
 * time. Reads the whole body, so a body that is not exactly one JSON value is refused here as the
 * tree would refuse it. A key given twice counts with its last value, as in Jackson's tree. The
 * same facts can be read from a tree ({@link #of(JsonNode)}), so both ways answer alike.
 */
final class ConversionReviewScan {
  /** The body's JSON value: none (empty body), an object, or anything else. */
  enum Shape {
    EMPTY,
    OBJECT,
    OTHER
  }

  Shape shape = Shape.EMPTY;

  /** The top-level {@code apiVersion} if it is a string, else empty. */
  String apiVersion = "";

  /** The top-level {@code kind} if it is a string, else empty. */
  String kind = "";

  /** True when {@code request} is an object. */
  boolean requestIsObject;

  /** The JSON type of {@code request} ("an array", ...), or {@code null} when absent. */
  String requestType;

  /** {@code request.uid} if it is a string, else {@code null}. */
  String uid;

  /** The JSON type of {@code request.uid} ("a number", ...), or {@code null} when absent. */
  String uidType;

  /** {@code request.desiredAPIVersion} if it is a string, else {@code null}. */
  String desiredApiVersion;

  /** The JSON type of {@code request.desiredAPIVersion}, or {@code null} when absent. */
  String desiredApiVersionType;

  /** The first token of {@code request.objects}, or {@code null} when absent. */
  JsonToken objects;

  /** Byte offset of {@code request.objects} in the body when it is an array, else -1. */
  long objectsOffset = -1;

  private ConversionReviewScan() {}

  /**
   * @param review a parsed review (may be malformed, or {@code null}: not an object)
   * @return what it holds, as {@link #of(ObjectMapper, byte[])} reads it from the body
   */
  static ConversionReviewScan of(JsonNode review) {
    ConversionReviewScan scan = new ConversionReviewScan();
    if (review != null && review.isMissingNode()) {
      return scan;
    }
    scan.shape = review != null && review.isObject() ? Shape.OBJECT : Shape.OTHER;
    scan.apiVersion = ConversionReviews.textAt(review, "/apiVersion");
    scan.kind = ConversionReviews.textAt(review, "/kind");
    JsonNode request = review == null ? null : review.get("request");
    scan.requestIsObject = scan.shape == Shape.OBJECT && request != null && request.isObject();
    scan.requestType = type(request);
    if (scan.requestIsObject) {
      scan.uid = text(request.get("uid"));
      scan.uidType = type(request.get("uid"));
      scan.desiredApiVersion = text(request.get("desiredAPIVersion"));
      scan.desiredApiVersionType = type(request.get("desiredAPIVersion"));
      JsonNode objects = request.get("objects");
      scan.objects =
          objects == null
              ? null
              : objects.isNull()
                  ? JsonToken.VALUE_NULL
                  : objects.isArray() ? JsonToken.START_ARRAY : JsonToken.VALUE_EMBEDDED_OBJECT;
    }
    return scan;
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.asText() : null;
  }

  private static String type(JsonNode node) {
    return node == null ? null : type(node.asToken());
  }

  /** "a string", "a number", "an object", ... as the admission reader says it. */
  private static String type(JsonToken token) {
    return switch (token) {
      case START_ARRAY -> "an array";
      case START_OBJECT -> "an object";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> token.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /**
   * @param path e.g. {@code request.uid}
   * @param type what {@link #uidType} or {@link #desiredApiVersionType} holds
   * @return {@code <path> is missing} or {@code <path> must be a string, got <type>}
   */
  static String notAString(String path, String type) {
    return type == null ? path + " is missing" : path + " must be a string, got " + type;
  }

  /**
   * @param mapper creates the parser (its limits apply)
   * @param body the request body
   * @return what the body holds
   * @throws IOException when the body is not JSON, or holds more than whitespace after the value
   *     (with the same messages as {@code JsonBodies.readOne})
   */
  static ConversionReviewScan of(ObjectMapper mapper, byte[] body) throws IOException {
    ConversionReviewScan scan = new ConversionReviewScan();
    try (JsonParser p = mapper.createParser(body)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return scan;
      }
      if (first == JsonToken.START_OBJECT) {
        scan.shape = Shape.OBJECT;
        scan.readReview(p);
      } else {
        scan.shape = Shape.OTHER;
        p.skipChildren();
      }
      if (p.nextToken() != null) {
        throw new JsonParseException(
            p, "unexpected content after the JSON value (one review per request)");
      }
    }
    return scan;
  }

  private void readReview(JsonParser p) throws IOException {
    for (String field; (field = p.nextFieldName()) != null; ) {
      JsonToken value = p.nextToken();
      switch (field) {
        case "apiVersion" -> apiVersion = value == JsonToken.VALUE_STRING ? p.getText() : "";
        case "kind" -> kind = value == JsonToken.VALUE_STRING ? p.getText() : "";
        case "request" -> readRequest(p, value);
        default -> {
          // any other field
        }
      }
      p.skipChildren(); // an object or array value not read above (nothing for a scalar)
    }
  }

  private void readRequest(JsonParser p, JsonToken start) throws IOException {
    requestIsObject = start == JsonToken.START_OBJECT;
    requestType = type(start);
    uid = null;
    uidType = null;
    desiredApiVersion = null;
    desiredApiVersionType = null;
    objects = null;
    objectsOffset = -1;
    if (!requestIsObject) {
      return; // the caller skips it
    }
    for (String field; (field = p.nextFieldName()) != null; ) {
      JsonToken value = p.nextToken();
      switch (field) {
        case "uid" -> {
          uid = value == JsonToken.VALUE_STRING ? p.getText() : null;
          uidType = type(value);
        }
        case "desiredAPIVersion" -> {
          desiredApiVersion = value == JsonToken.VALUE_STRING ? p.getText() : null;
          desiredApiVersionType = type(value);
        }
        case "objects" -> {
          objects = value;
          objectsOffset =
              value == JsonToken.START_ARRAY ? p.currentTokenLocation().getByteOffset() : -1;
        }
        default -> {
          // any other field
        }
      }
      p.skipChildren(); // an object or array value (nothing for a scalar)
    }
  }
}

package dev.ironcore.maintenance.server.conversion;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import dev.ironcore.maintenance.server.admission.JsonBodies;
import dev.ironcore.maintenance.server.admission.ReviewSalvage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers an {@code apiextensions.k8s.io/v1} ConversionReview (domain reference §6) with {@link
 * ComputeConverter}: a pure function review → review that never throws, so the HTTP edge always
 * answers 200.
 *
 * <p>The reply has the request's apiVersion ({@code apiextensions.k8s.io/v1} when unreadable), kind
 * {@code ConversionReview}, {@code response.uid} = {@code request.uid} (or {@code ""} when
 * unreadable) and either {@code result.status: Success} with {@code convertedObjects} (same number,
 * same order, each with {@code apiVersion} = {@code desiredAPIVersion}) or {@code result.status:
 * Failure} with a one-line message and no objects. Failure when the body is not JSON, not an
 * object, of another kind, has no {@code request}, a {@code request.uid} or {@code
 * desiredAPIVersion} that is not a string, {@code objects} that is not an array, or any object that
 * cannot be converted (the message names it by index, kind, namespace/name). Missing or null {@code
 * objects} is an empty list. Logs one line per review.
 */
public final class ConversionReviews {
  /** The apiVersion used when the request's cannot be read. */
  public static final String API_VERSION = "apiextensions.k8s.io/v1";

  /** The kind of request and reply. */
  public static final String KIND = "ConversionReview";

  private static final Logger LOG = LoggerFactory.getLogger(ConversionReviews.class);
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  private ConversionReviews() {}

  /**
   * A reply review and whether it says Success.
   *
   * @param review the ConversionReview to send back
   * @param succeeded true for {@code result.status: Success}
   */
  public record Answer(ObjectNode review, boolean succeeded) {}

  /**
   * @param webhook the path that was called, only logged
   * @param body the raw HTTP request body (any bytes)
   * @return the reply; never throws
   */
  public static Answer answer(String webhook, byte[] body) {
    JsonNode review;
    try {
      review = JsonBodies.readOne(MAPPER, MAPPER.createParser(body));
    } catch (IOException e) {
      ReviewSalvage salvage = ReviewSalvage.of(body);
      String message =
          "request body is not valid JSON: "
              + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage());
      return failure(webhook, salvage.apiVersion(), salvage.uid(), message);
    }
    return answer(webhook, review, true);
  }

  /**
   * @param webhook the path that was called, only logged
   * @param review a parsed ConversionReview (may be malformed or null)
   * @return the reply; never throws
   */
  public static Answer answer(String webhook, JsonNode review) {
    return answer(webhook, review, false);
  }

  /**
   * @param owned true when {@code review} was parsed for this answer only: its objects are then
   *     converted in place ({@link ComputeConverter#convertOwned}), not copied
   */
  private static Answer answer(String webhook, JsonNode review, boolean owned) {
    String apiVersion = textAt(review, "/apiVersion");
    String uid = textAt(review, "/request/uid");
    if (review != null && review.isMissingNode()) {
      return failure(
          webhook, apiVersion, uid, "request body is empty (expected a ConversionReview)");
    }
    if (review == null || !review.isObject()) {
      return failure(webhook, apiVersion, uid, "request body is not a ConversionReview object");
    }
    String kind = textAt(review, "/kind");
    if (!kind.isEmpty() && !kind.equals(KIND)) {
      return failure(webhook, apiVersion, uid, "expected kind " + KIND + ", got " + kind);
    }
    JsonNode request = review.get("request");
    if (request == null || !request.isObject()) {
      return failure(webhook, apiVersion, uid, "request must be an object");
    }
    JsonNode uidNode = request.get("uid");
    if (uidNode == null || !uidNode.isTextual()) {
      return failure(webhook, apiVersion, "", "request.uid must be a string");
    }
    JsonNode desiredNode = request.get("desiredAPIVersion");
    if (desiredNode == null || !desiredNode.isTextual()) {
      return failure(webhook, apiVersion, uid, "request.desiredAPIVersion must be a string");
    }
    String desired = desiredNode.asText();
    JsonNode objects = request.get("objects");
    if (objects != null && !objects.isNull() && !objects.isArray()) {
      return failure(webhook, apiVersion, uid, "request.objects must be an array");
    }
    ArrayNode converted = MAPPER.createArrayNode();
    if (objects != null) {
      for (int i = 0; i < objects.size(); i++) {
        JsonNode object = objects.get(i);
        try {
          converted.add(
              owned
                  ? ComputeConverter.convertOwned(object, desired)
                  : ComputeConverter.convert(object, desired));
        } catch (ConversionException e) {
          return failure(
              webhook,
              apiVersion,
              uid,
              "cannot convert " + describe(i, object) + " to " + desired + ": " + e.getMessage());
        } catch (RuntimeException e) {
          LOG.error(
              "conversion webhook={} uid={} failed on {}", webhook, uid, describe(i, object), e);
          return failure(
              webhook,
              apiVersion,
              uid,
              "internal error converting " + describe(i, object) + ": " + e.getClass().getName());
        }
      }
    }
    // DEBUG (--zap-log-level=debug): the API server converts on every read in the other version
    if (!AdmissionReviews.WARM_UP_UID.equals(uid)) {
      LOG.debug(
          "conversion webhook={} uid={} desired={} objects={} result=Success",
          webhook,
          uid,
          desired,
          converted.size());
    }
    ObjectNode response = MAPPER.createObjectNode();
    response.put("uid", uid);
    response.putObject("result").put("status", "Success");
    response.set("convertedObjects", converted);
    return new Answer(reply(apiVersion, response), true);
  }

  /**
   * @return the reply as compact JSON bytes (UTF-8)
   */
  public static byte[] toBytes(ObjectNode reply) {
    return toBytes(reply, 512);
  }

  /**
   * @param reply the reply review
   * @param expectedBytes about how long the JSON will be, e.g. the request body's length (a
   *     conversion answers with objects of about the size it was sent): the buffer starts that big
   *     instead of growing and being copied piece by piece
   * @return the reply as compact JSON bytes (UTF-8)
   */
  public static byte[] toBytes(ObjectNode reply, int expectedBytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(expectedBytes, 64));
    try {
      MAPPER.writeValue(out, reply);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise a JSON tree", e);
    }
    return out.toByteArray();
  }

  /**
   * @return e.g. {@code objects[3] (Machine demo/vm-1)}, or {@code objects[3]} when the object has
   *     no kind or name
   */
  static String describe(int index, JsonNode object) {
    String kind = textAt(object, "/kind");
    String namespace = textAt(object, "/metadata/namespace");
    String name = textAt(object, "/metadata/name");
    String qualified = namespace.isEmpty() ? name : namespace + "/" + name;
    String what = (kind + " " + qualified).trim();
    return "objects[" + index + "]" + (what.isEmpty() ? "" : " (" + what + ")");
  }

  private static Answer failure(String webhook, String apiVersion, String uid, String message) {
    String line = message.replaceAll("\\s+", " ").trim();
    LOG.warn(
        "conversion webhook={} uid={} result=Failure: {}",
        webhook,
        uid.isEmpty() ? "<unreadable>" : uid,
        line);
    ObjectNode response = MAPPER.createObjectNode();
    response.put("uid", uid);
    ObjectNode result = response.putObject("result");
    result.put("status", "Failure");
    result.put("message", line);
    response.putArray("convertedObjects");
    return new Answer(reply(apiVersion, response), false);
  }

  private static ObjectNode reply(String apiVersion, ObjectNode response) {
    ObjectNode reply = MAPPER.createObjectNode();
    reply.put(
        "apiVersion", apiVersion.startsWith("apiextensions.k8s.io/") ? apiVersion : API_VERSION);
    reply.put("kind", KIND);
    reply.set("response", response);
    return reply;
  }

  private static String textAt(JsonNode node, String pointer) {
    if (node == null) {
      return "";
    }
    JsonNode value = node.at(pointer);
    return value.isTextual() ? value.asText() : "";
  }
}

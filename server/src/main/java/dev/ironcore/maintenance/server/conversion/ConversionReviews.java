package dev.ironcore.maintenance.server.conversion;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.validation.Excerpt;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import dev.ironcore.maintenance.server.admission.JsonBodies;
import dev.ironcore.maintenance.server.admission.ReviewSalvage;
import dev.ironcore.maintenance.server.admission.TokenAllowance;
import dev.ironcore.maintenance.server.admission.TokenCountingParser;
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
 * object, of another kind or an apiVersion other than {@code apiextensions.k8s.io/v1} or {@code
 * v1beta1}, has no {@code request}, a {@code request.uid} or {@code desiredAPIVersion} that is not
 * a string, an empty {@code request.uid}, {@code objects} that is not an array, or any object that
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
   * Answers from a tree of the whole review: the reference for {@link #answerEncoded}, which the
   * server uses.
   *
   * @param webhook the path that was called, only logged
   * @param body the raw HTTP request body (any bytes)
   * @return the reply; never throws
   */
  public static Answer answer(String webhook, byte[] body) {
    return answer(webhook, body, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #answer(String, byte[])}, with the review's tree bounded by {@code allowance}.
   *
   * @throws TokenAllowance.Refused when the tree would hold more tokens than {@code allowance}
   *     grants; nothing was converted
   */
  static Answer answer(String webhook, byte[] body, TokenAllowance allowance) {
    JsonNode review;
    JsonParser counting;
    try {
      counting = TokenCountingParser.wrap(MAPPER.createParser(body), allowance);
      review = JsonBodies.readOne(MAPPER, counting);
    } catch (IOException e) {
      return notJson(webhook, body, e);
    }
    return answer(webhook, review, true, TokenCountingParser.after(counting, allowance));
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
    return answer(webhook, review, owned, TokenAllowance.UNLIMITED);
  }

  /**
   * @param allowance bounds the trees parsed while converting (the annotation on up-conversion)
   */
  private static Answer answer(
      String webhook, JsonNode review, boolean owned, TokenAllowance allowance) {
    ConversionReviewScan head = ConversionReviewScan.of(review);
    Answer refused = refusal(webhook, head);
    if (refused != null) {
      return refused;
    }
    JsonNode objects = review.get("request").get("objects");
    ArrayNode converted = MAPPER.createArrayNode();
    if (objects != null && objects.isArray()) {
      for (int i = 0; i < objects.size(); i++) {
        JsonNode object = objects.get(i);
        try {
          converted.add(
              owned
                  ? ComputeConverter.convertOwned(object, head.desiredApiVersion, allowance)
                  : ComputeConverter.convert(object, head.desiredApiVersion));
        } catch (TokenAllowance.Refused e) {
          throw e;
        } catch (ConversionException | RuntimeException e) {
          return conversionFailure(webhook, head, i, object, e);
        }
      }
    }
    logSuccess(webhook, head, converted.size());
    ObjectNode response = MAPPER.createObjectNode();
    response.put("uid", head.uid);
    response.putObject("result").put("status", "Success");
    response.set("convertedObjects", converted);
    return new Answer(reply(head.apiVersion, response), true);
  }

  /**
   * A reply review as JSON bytes and whether it says Success.
   *
   * @param json the ConversionReview to send back, compact UTF-8 JSON
   * @param succeeded true for {@code result.status: Success}
   */
  public record Encoded(byte[] json, boolean succeeded) {}

  /**
   * Bodies up to this size are answered from a whole tree ({@link #answer(String, byte[])}), larger
   * ones one object at a time ({@link #answerStreamed}): 64 KiB. Both give the same bytes; the tree
   * is about a tenth faster for small reviews (the streamed way reads the envelope twice: 4,550
   * against 5,025 reviews of 24 KB a second), the streamed way holds far less for large ones.
   */
  public static final int TREE_LIMIT_BYTES = 64 * 1024;

  /**
   * The reply the server sends: {@link #answer(String, byte[])} as {@link #toBytes(ObjectNode)}
   * would write it, built from a tree for a body up to {@link #TREE_LIMIT_BYTES}, else by {@link
   * #answerStreamed}.
   *
   * @param webhook the path that was called, only logged
   * @param body the raw HTTP request body (any bytes)
   * @return the reply; never throws
   */
  public static Encoded answerEncoded(String webhook, byte[] body) {
    return answerEncoded(webhook, body, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #answerEncoded(String, byte[])}, with each tree (of the whole review, or of one
   * object when answered one object at a time) bounded by {@code allowance}.
   *
   * @throws TokenAllowance.Refused when a tree would hold more tokens than {@code allowance}
   *     grants; nothing is answered
   */
  public static Encoded answerEncoded(String webhook, byte[] body, TokenAllowance allowance) {
    if (body.length <= TREE_LIMIT_BYTES) {
      return encoded(answer(webhook, body, allowance), body.length + 512);
    }
    return answerStreamed(webhook, body, allowance);
  }

  /**
   * The same reply as {@link #answer(String, byte[])} written with {@link #toBytes(ObjectNode)},
   * byte for byte, but the objects are read, converted and written one at a time: the heap holds
   * the body, the reply's bytes and one object's tree, never a tree of the whole review. (The API
   * server converts a list of the other version in one review; with the whole tree, a review of 6.9
   * MB needed about ten times its size in heap and ended the shipped 64 MiB server with {@code
   * OutOfMemoryError}.)
   *
   * @param webhook the path that was called, only logged
   * @param body the raw HTTP request body (any bytes)
   * @return the reply; never throws
   */
  public static Encoded answerStreamed(String webhook, byte[] body) {
    return answerStreamed(webhook, body, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #answerStreamed(String, byte[])}, with the tree of each object bounded by {@code
   * allowance} (the count starts anew for every object: one object's tree is held at a time).
   *
   * @throws TokenAllowance.Refused when an object's tree would hold more tokens than {@code
   *     allowance} grants; nothing is answered
   */
  static Encoded answerStreamed(String webhook, byte[] body, TokenAllowance allowance) {
    ConversionReviewScan head;
    try {
      head = ConversionReviewScan.of(MAPPER, body);
    } catch (IOException e) {
      return encoded(notJson(webhook, body, e), 512);
    }
    Answer refused = refusal(webhook, head);
    if (refused != null) {
      return encoded(refused, 512);
    }
    if (head.objects == JsonToken.START_ARRAY && head.objectsOffset < 0) {
      // not UTF-8 (Jackson reads UTF-16 and UTF-32 too): no byte offsets, answer from the tree
      return encoded(answer(webhook, body, allowance), body.length + 512);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 512);
    int count = 0;
    try (JsonGenerator g = MAPPER.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("apiVersion", replyApiVersion(head.apiVersion));
      g.writeStringField("kind", KIND);
      g.writeObjectFieldStart("response");
      g.writeStringField("uid", head.uid);
      g.writeObjectFieldStart("result");
      g.writeStringField("status", "Success");
      g.writeEndObject();
      g.writeArrayFieldStart("convertedObjects");
      if (head.objects == JsonToken.START_ARRAY) {
        int offset = (int) head.objectsOffset;
        try (JsonParser p = MAPPER.createParser(body, offset, body.length - offset)) {
          p.nextToken(); // the array, read once already: no surprises
          for (; p.nextToken() != JsonToken.END_ARRAY; count++) {
            JsonParser counting = TokenCountingParser.wrap(p, allowance);
            JsonNode object = MAPPER.readTree(counting);
            JsonNode converted;
            try {
              converted =
                  ComputeConverter.convertOwned(
                      object,
                      head.desiredApiVersion,
                      TokenCountingParser.after(counting, allowance));
            } catch (TokenAllowance.Refused e) {
              throw e;
            } catch (ConversionException | RuntimeException e) {
              return encoded(conversionFailure(webhook, head, count, object, e), 512);
            }
            MAPPER.writeTree(g, converted);
            if (out.size() > body.length) {
              // the generator's buffer not counted: at most 8 KB more
              allowance.admitReplyBytes(out.size() - body.length);
            }
          }
        }
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      // the body was read once already and writing goes to memory: not expected
      LOG.error("conversion webhook={} uid={}: {}", webhook, Excerpt.of(head.uid), e.toString(), e);
      return encoded(
          failure(
              webhook,
              head.apiVersion,
              head.uid,
              "internal error writing the reply: " + e.getClass().getName()),
          512);
    }
    logSuccess(webhook, head, count);
    return new Encoded(out.toByteArray(), true);
  }

  private static Encoded encoded(Answer answer, int expectedBytes) {
    return new Encoded(toBytes(answer.review(), expectedBytes), answer.succeeded());
  }

  private static Answer notJson(String webhook, byte[] body, IOException e) {
    ReviewSalvage salvage = ReviewSalvage.of(body);
    String message = dev.ironcore.maintenance.server.admission.JsonErrorText.bodyMessage(e);
    return failure(webhook, salvage.apiVersion(), salvage.uid(), message);
  }

  /** The Failure reply for a review whose shape is wrong, or {@code null} when it is right. */
  private static Answer refusal(String webhook, ConversionReviewScan h) {
    // the uid as far as readable, for the messages before request.uid itself is checked
    String uid = h.requestIsObject && h.uid != null ? h.uid : "";
    if (h.shape == ConversionReviewScan.Shape.EMPTY) {
      return failure(
          webhook, h.apiVersion, uid, "request body is empty (expected a ConversionReview)");
    }
    if (h.shape != ConversionReviewScan.Shape.OBJECT) {
      return failure(webhook, h.apiVersion, uid, "request body is not a ConversionReview object");
    }
    if (!h.kind.isEmpty() && !h.kind.equals(KIND)) {
      return failure(
          webhook, h.apiVersion, uid, "expected kind " + KIND + ", got " + Excerpt.of(h.kind));
    }
    if (!h.apiVersion.isEmpty() && !API_VERSIONS.contains(h.apiVersion)) {
      return failure(
          webhook,
          h.apiVersion,
          uid,
          "expected apiVersion "
              + API_VERSION
              + " (or apiextensions.k8s.io/v1beta1), got "
              + ComputeConverter.quoted(h.apiVersion));
    }
    if (!h.requestIsObject) {
      // fresh eyes: a review without request was told "request must be an object"
      return failure(
          webhook,
          h.apiVersion,
          uid,
          h.requestType == null
              ? "request is missing"
              : "request must be an object, got " + h.requestType);
    }
    if (h.uid == null) {
      return failure(
          webhook, h.apiVersion, "", ConversionReviewScan.notAString("request.uid", h.uidType));
    }
    if (h.uid.isEmpty()) {
      // as admission refuses it: the API server always sends one, and matches the reply by it
      return failure(webhook, h.apiVersion, "", "request.uid must not be empty");
    }
    if (h.desiredApiVersion == null) {
      return failure(
          webhook,
          h.apiVersion,
          uid,
          ConversionReviewScan.notAString("request.desiredAPIVersion", h.desiredApiVersionType));
    }
    if (h.objects != null
        && h.objects != JsonToken.VALUE_NULL
        && h.objects != JsonToken.START_ARRAY) {
      return failure(webhook, h.apiVersion, uid, "request.objects must be an array");
    }
    if (!ComputeVersions.ALL.contains(h.desiredApiVersion)) {
      // the review's own field, not any object's: also with no objects
      return failure(
          webhook,
          h.apiVersion,
          uid,
          "request.desiredAPIVersion must be one of "
              + ComputeVersions.ALL
              + ", got "
              + ComputeConverter.quoted(h.desiredApiVersion));
    }
    return null;
  }

  private static Answer conversionFailure(
      String webhook, ConversionReviewScan h, int index, JsonNode object, Exception e) {
    if (e instanceof ConversionException) {
      return failure(
          webhook,
          h.apiVersion,
          h.uid,
          "cannot convert "
              + describe(index, object)
              + " to "
              + Excerpt.of(h.desiredApiVersion)
              + ": "
              + e.getMessage());
    }
    LOG.error(
        "conversion webhook={} uid={} failed on {}",
        webhook,
        Excerpt.of(h.uid),
        describe(index, object),
        e);
    return failure(
        webhook,
        h.apiVersion,
        h.uid,
        "internal error converting " + describe(index, object) + ": " + e.getClass().getName());
  }

  private static void logSuccess(String webhook, ConversionReviewScan h, int objects) {
    // DEBUG (--zap-log-level=debug): the API server converts on every read in the other version
    if (!AdmissionReviews.WARM_UP_UID.equals(h.uid)) {
      LOG.debug(
          "conversion webhook={} uid={} desired={} objects={} result=Success",
          webhook,
          Excerpt.of(h.uid),
          Excerpt.of(h.desiredApiVersion),
          objects);
    }
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
    String what = Excerpt.of((kind + " " + qualified).trim());
    return "objects[" + index + "]" + (what.isEmpty() ? "" : " (" + what + ")");
  }

  private static Answer failure(String webhook, String apiVersion, String uid, String message) {
    String line = message.replaceAll("\\s+", " ").trim();
    LOG.warn(
        "conversion webhook={} uid={} result=Failure: {}",
        webhook,
        uid.isEmpty() ? "<unreadable>" : Excerpt.of(uid),
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
    reply.put("apiVersion", replyApiVersion(apiVersion));
    reply.put("kind", KIND);
    reply.set("response", response);
    return reply;
  }

  /** The request's apiVersion when it is one of ConversionReview's, else {@link #API_VERSION}. */
  private static String replyApiVersion(String apiVersion) {
    return API_VERSIONS.contains(apiVersion) ? apiVersion : API_VERSION;
  }

  /**
   * The ConversionReview versions the API server may send ({@code conversionReviewVersions}): v1,
   * and v1beta1 for CRDs that still list it; the reply has the request's.
   */
  static final java.util.Set<String> API_VERSIONS =
      java.util.Set.of(API_VERSION, "apiextensions.k8s.io/v1beta1");

  static String textAt(JsonNode node, String pointer) {
    if (node == null) {
      return "";
    }
    JsonNode value = node.at(pointer);
    return value.isTextual() ? value.asText() : "";
  }
}

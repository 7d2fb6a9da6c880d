package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.validation.Excerpt;
import dev.ironcore.maintenance.process.ObjectLogContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an admission.k8s.io/v1 AdmissionReview into the reply AdmissionReview (domain reference
 * §6): the reply has the request's {@code apiVersion} and kind {@code AdmissionReview}, and {@code
 * response.uid} always equals {@code request.uid}. Handler exceptions become an errored response
 * (status code 500) with the uid; a malformed review becomes an errored response (400) with
 * whatever uid could be read. It never throws, so the HTTP layer can always answer 200. Logs one
 * line per decision, starting {@code admission webhook=<path>} so lines of the mutating and
 * validating webhooks for the same object can be told apart.
 */
public final class AdmissionReviews {
  /**
   * The uid of the server's own warm-up reviews ({@code WarmUp}): an allowed decision on one is not
   * logged, even at debug (a denial or an error still is). Not a UUID, so never an API server's.
   */
  public static final String WARM_UP_UID = "ironcore-maintenance-warm-up";

  /** The apiVersion used when the request's cannot be read. */
  public static final String API_VERSION = "admission.k8s.io/v1";

  /** The kind of request and reply. */
  public static final String KIND = "AdmissionReview";

  private static final Logger LOG = LoggerFactory.getLogger(AdmissionReviews.class);
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  private AdmissionReviews() {}

  /**
   * A reply review: the response and what it is sent with.
   *
   * @param apiVersion the request's {@code apiVersion} (the reply's when it is an {@code
   *     admission.k8s.io} one, else {@link #API_VERSION})
   * @param uid the request's uid, echoed in {@code response.uid}
   * @param response the decision in {@code review.response}, also for malformed reviews (errored)
   */
  public record Answer(String apiVersion, String uid, AdmissionResponse response) {
    /**
     * @return the AdmissionReview to send back, as a tree
     */
    public ObjectNode review() {
      try {
        return (ObjectNode) MAPPER.readTree(toBytes());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read back a review written to memory", e);
      }
    }

    /**
     * @return {@link #review()} as compact JSON bytes (UTF-8), written without building the tree
     */
    public byte[] toBytes() {
      byte[] patchDocument = response.patchDocument(); // before g: see patchDocument()
      ByteArrayOutputStream out =
          new ByteArrayOutputStream(
              512 + (patchDocument == null ? 0 : 4 * (patchDocument.length + 2) / 3));
      try (JsonGenerator g = MAPPER.createGenerator(out)) {
        g.writeStartObject();
        g.writeStringField("apiVersion", replyApiVersion(apiVersion));
        g.writeStringField("kind", KIND);
        g.writeFieldName("response");
        response.write(g, uid, patchDocument);
        g.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write a review to memory", e);
      }
      return out.toByteArray();
    }
  }

  /**
   * As {@link #reply(String, byte[], AdmissionHandler)} with the handler's simple class name as the
   * webhook in the log line (for callers without a path, e.g. benchmarks).
   */
  public static ObjectNode reply(byte[] body, AdmissionHandler handler) {
    return reply(handler.getClass().getSimpleName(), body, handler);
  }

  /**
   * @param webhook which webhook answers, e.g. its path {@code /validate/machine}; only logged
   * @param body the raw HTTP request body (any bytes)
   * @param handler the decision to apply
   * @return the reply review, as for {@link #reply(String, JsonNode, AdmissionHandler)}; for a body
   *     that is not JSON, an errored reply carrying the uid if it could be read before the error
   */
  public static ObjectNode reply(String webhook, byte[] body, AdmissionHandler handler) {
    return answer(webhook, body, handler).review();
  }

  /**
   * @param webhook which webhook answers, e.g. its path {@code /validate/machine}; only logged
   * @param review a parsed AdmissionReview (may be malformed or null)
   * @param handler the decision to apply
   * @return {@code {apiVersion, kind: AdmissionReview, response: {uid, allowed, ...}}}; for a
   *     malformed review (see {@link AdmissionRequest#fromReview}) an errored 400 response whose
   *     uid is {@code request.uid} when that is a string, else {@code ""}
   */
  public static ObjectNode reply(String webhook, JsonNode review, AdmissionHandler handler) {
    return answer(webhook, review, handler).review();
  }

  /**
   * As {@link #reply(String, byte[], AdmissionHandler)}, also returning the response that the reply
   * carries.
   *
   * @return the reply review and its response; never throws
   */
  public static Answer answer(String webhook, byte[] body, AdmissionHandler handler) {
    return answer(webhook, body, handler, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #answer(String, byte[], AdmissionHandler)}, with the review's tree bounded by {@code
   * allowance} (the server's heap per request, {@link TokenAllowance}).
   *
   * @return the reply review and its response
   * @throws TokenAllowance.Refused when the tree of the review would hold more tokens than {@code
   *     allowance} grants; nothing was decided
   */
  public static Answer answer(
      String webhook, byte[] body, AdmissionHandler handler, TokenAllowance allowance) {
    JsonNode review;
    ObjectDepthParser depths;
    try {
      depths = new ObjectDepthParser(MAPPER.createParser(body));
      review =
          JsonBodies.readOne(
              MAPPER,
              TokenCountingParser.wrap(
                  ReviewFilter.wrap(depths, handler.objectFields()), allowance));
    } catch (IOException e) {
      ReviewSalvage salvage = ReviewSalvage.of(body);
      String message = JsonErrorText.bodyMessage(e);
      return malformed(webhook, salvage.apiVersion(), salvage.uid(), message);
    }
    return answer(webhook, review, handler, depths.objectDepth(), depths.oldObjectDepth());
  }

  /**
   * @return the review as a tree with only what {@link AdmissionRequest} and {@code handler} read
   *     ({@link ReviewFilter}: no {@code managedFields}, only the {@link
   *     AdmissionHandler#objectFields()} of the objects); a missing node for an empty body
   * @throws IOException when the body is not one JSON value ({@link JsonBodies})
   */
  static JsonNode readFor(AdmissionHandler handler, byte[] body) throws IOException {
    return readFor(handler, body, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #readFor(AdmissionHandler, byte[])}, counting the tokens kept against {@code
   * allowance}.
   *
   * @throws TokenAllowance.Refused when the kept tokens exceed what {@code allowance} grants
   */
  static JsonNode readFor(AdmissionHandler handler, byte[] body, TokenAllowance allowance)
      throws IOException {
    return JsonBodies.readOne(
        MAPPER,
        TokenCountingParser.wrap(
            ReviewFilter.wrap(MAPPER.createParser(body), handler.objectFields()), allowance));
  }

  /**
   * As {@link #reply(String, JsonNode, AdmissionHandler)}, also returning the response that the
   * reply carries.
   *
   * @return the reply review and its response; never throws
   */
  public static Answer answer(String webhook, JsonNode review, AdmissionHandler handler) {
    return answer(webhook, review, handler, ObjectDepthParser.UNKNOWN, ObjectDepthParser.UNKNOWN);
  }

  /**
   * As {@link #answer(String, JsonNode, AdmissionHandler)}, with the depths of the objects as they
   * were sent ({@link ObjectDepthParser}: parts the tree leaves out counted too).
   */
  private static Answer answer(
      String webhook,
      JsonNode review,
      AdmissionHandler handler,
      int objectDepth,
      int oldObjectDepth) {
    String apiVersion = KubeObjects.text(review, "apiVersion");
    String uid = KubeObjects.textAt(review, "/request/uid");
    if (review != null && review.isMissingNode()) {
      return malformed(
          webhook, apiVersion, uid, "request body is empty (expected an AdmissionReview)");
    }
    if (review == null || !review.isObject()) {
      return malformed(webhook, apiVersion, uid, "request body is not an AdmissionReview object");
    }
    String kind = KubeObjects.text(review, "kind");
    if (!kind.isEmpty() && !kind.equals(KIND)) {
      return malformed(
          webhook, apiVersion, uid, "expected kind " + KIND + ", got " + Excerpt.of(kind));
    }
    if (!apiVersion.isEmpty() && !API_VERSIONS.contains(apiVersion)) {
      return malformed(
          webhook,
          apiVersion,
          uid,
          "expected apiVersion "
              + API_VERSION
              + " (or admission.k8s.io/v1beta1), got "
              + "\""
              + Excerpt.of(apiVersion)
              + "\"");
    }
    AdmissionRequest request;
    try {
      request = AdmissionRequest.fromReview(review).withDepths(objectDepth, oldObjectDepth);
    } catch (MalformedReviewException e) {
      return malformed(webhook, apiVersion, uid, "malformed AdmissionReview: " + e.getMessage());
    }
    AdmissionResponse response;
    try {
      response = handler.handle(request);
      if (response == null) {
        throw new IllegalStateException("handler returned no response");
      }
    } catch (RuntimeException e) {
      LOG.error(
          "admission webhook={} handler failed for uid={} kind={} op={} name={}",
          webhook,
          Excerpt.of(request.uid()),
          Excerpt.of(request.kind().toString()),
          request.operation(),
          qualifiedName(request),
          e);
      response =
          AdmissionResponse.errored(
              500, "internal error in admission webhook: " + JsonErrorText.of(e));
    }
    log(webhook, request, response);
    return new Answer(apiVersion, request.uid(), response);
  }

  private static Answer malformed(String webhook, String apiVersion, String uid, String message) {
    LOG.warn(
        "admission webhook={} uid={} rejected malformed review: {}",
        webhook,
        uid.isEmpty() ? "<unreadable>" : Excerpt.of(uid),
        message);
    AdmissionResponse response = AdmissionResponse.errored(400, message);
    return new Answer(apiVersion, uid, response);
  }

  private static String replyApiVersion(String apiVersion) {
    return API_VERSIONS.contains(apiVersion) ? apiVersion : API_VERSION;
  }

  /**
   * The AdmissionReview versions the API server may send ({@code admissionReviewVersions}): v1, and
   * v1beta1 for configurations that still list it; the reply has the request's.
   */
  static final java.util.Set<String> API_VERSIONS =
      java.util.Set.of(API_VERSION, "admission.k8s.io/v1beta1");

  /**
   * One line per decision: a denial at INFO (what an operator may be asked about), an allowed
   * request, patched or not, at DEBUG ({@code --zap-log-level=debug}); controller-runtime's
   * webhooks log requests only at their highest verbosity. At thousands of reviews a second the
   * INFO line cost about a tenth of the server's CPU ({@code bench/analysis.md}).
   */
  private static void log(String webhook, AdmissionRequest request, AdmissionResponse response) {
    if (response.isAllowed()
        ? !LOG.isDebugEnabled() || WARM_UP_UID.equals(request.uid())
        : response.decision() == AdmissionResponse.Decision.ERRORED
            ? !LOG.isWarnEnabled()
            : !LOG.isInfoEnabled()) {
      return;
    }
    try (ObjectLogContext ignored =
        ObjectLogContext.of(
            Excerpt.of(request.kind().toString()),
            Excerpt.of(request.namespace()),
            Excerpt.of(request.displayName()))) {
      logDecision(webhook, request, response);
    }
  }

  private static void logDecision(
      String webhook, AdmissionRequest request, AdmissionResponse response) {
    // allowed: DEBUG; a rule's denial: INFO; a review that could not be judged (e.g. a kind the
    // path does not judge: a misconfigured webhook configuration) is WARN, as a malformed one is
    org.slf4j.event.Level level =
        response.isAllowed()
            ? org.slf4j.event.Level.DEBUG
            : response.decision() == AdmissionResponse.Decision.ERRORED
                ? org.slf4j.event.Level.WARN
                : org.slf4j.event.Level.INFO;
    String outcome =
        response.isAllowed()
            ? "allowed=true patchOps="
                + response.patch().size()
                + (response.warnings().isEmpty() ? "" : " warnings=" + response.warnings())
            : "allowed=false code=" + response.code() + " message=" + response.message();
    LOG.atLevel(level)
        .log(
            "admission webhook={} uid={} kind={} op={} name={} dryRun={} {}",
            webhook,
            Excerpt.of(request.uid()),
            Excerpt.of(request.kind().toString()),
            request.operation(),
            qualifiedName(request),
            request.dryRun(),
            outcome);
  }

  private static String qualifiedName(AdmissionRequest request) {
    return Excerpt.of(
        request.namespace().isEmpty()
            ? request.displayName()
            : request.namespace() + "/" + request.displayName());
  }
}

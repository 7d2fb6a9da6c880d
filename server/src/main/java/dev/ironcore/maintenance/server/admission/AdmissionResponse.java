package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.validation.Excerpt;
import dev.ironcore.maintenance.api.validation.FieldError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A handler's decision: allowed (optionally with a JSON Patch and warnings) or not (with a {@code
 * metav1.Status}). Immutable; build with the static constructors.
 */
public final class AdmissionResponse {
  /** Which constructor made a response, in one word (e.g. for counting decisions). */
  public enum Decision {
    /**
     * {@link AdmissionResponse#allowed()}, or {@link AdmissionResponse#patched} with the empty
     * patch.
     */
    ALLOWED,
    /** {@link AdmissionResponse#patched} with a non-empty patch. */
    PATCHED,
    /** {@link AdmissionResponse#denied} or {@link AdmissionResponse#invalid}: a rule said no. */
    DENIED,
    /**
     * {@link AdmissionResponse#errored}: the request could not be judged (malformed review, handler
     * failure).
     */
    ERRORED;

    /**
     * @return the name in lower case, e.g. {@code "patched"}
     */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Decision decision;
  private final boolean allowed;
  private final JsonPatch patch;
  private final List<String> warnings;

  /** {@code metav1.Status} without {@code metadata}; null when allowed. */
  private final ObjectNode status;

  private AdmissionResponse(
      Decision decision, JsonPatch patch, List<String> warnings, ObjectNode status) {
    this.decision = decision;
    this.allowed = decision == Decision.ALLOWED || decision == Decision.PATCHED;
    this.patch = patch;
    this.warnings = List.copyOf(warnings);
    this.status = status;
  }

  /**
   * @return allowed, no patch
   */
  public static AdmissionResponse allowed() {
    return new AdmissionResponse(Decision.ALLOWED, JsonPatch.empty(), List.of(), null);
  }

  /**
   * @param patch the change to apply; the empty patch means plain {@link #allowed()}
   * @return allowed with that patch (mutating webhooks only, domain reference §6)
   */
  public static AdmissionResponse patched(JsonPatch patch) {
    Objects.requireNonNull(patch, "patch");
    return new AdmissionResponse(
        patch.isEmpty() ? Decision.ALLOWED : Decision.PATCHED, patch, List.of(), null);
  }

  /**
   * @param message shown by kubectl after {@code admission webhook "<name>" denied the request: }
   * @param causes field errors; when present the status is 422 {@code Invalid} with {@code
   *     details.causes}, otherwise 403 {@code Forbidden}
   * @return denied
   */
  public static AdmissionResponse denied(String message, FieldError... causes) {
    ObjectNode status =
        status(causes.length > 0 ? 422 : 403, causes.length > 0 ? "Invalid" : "Forbidden", message);
    if (causes.length > 0) {
      status.putObject("details").set("causes", causesJson(List.of(causes)));
    }
    return new AdmissionResponse(Decision.DENIED, JsonPatch.empty(), List.of(), status);
  }

  /**
   * Most field errors a denial shows: 32, in the message and as causes; more are counted ("[...,
   * and N more errors]" in the message, and one more cause naming the first left out, since kubectl
   * prints the causes). One invalid entry is one error, so a list of 50,000 bad entries (a 103 KB
   * review) made a reply of tens of MB and ended the 64 MiB server (a fresh-eyes check); the first
   * errors are what a user fixes first.
   */
  public static final int MAX_CAUSES = 32;

  /**
   * Denies like Kubernetes' {@code apierrors.NewInvalid}: 422, reason {@code Invalid}, message
   * {@code Kind.group "name" is invalid: <errors>}, details {@code {group, kind, name, causes}},
   * which kubectl prints as {@code The Kind "name" is invalid: <field>: <message>}; at most {@link
   * #MAX_CAUSES} errors are shown.
   *
   * @param kind the kind of the object
   * @param name the object's name (may be empty)
   * @param errors at least one error
   * @return denied
   * @throws IllegalArgumentException when {@code errors} is empty
   */
  public static AdmissionResponse invalid(
      GroupVersionKind kind, String name, List<FieldError> errors) {
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("invalid() needs at least one error");
    }
    List<FieldError> shown = errors.subList(0, Math.min(errors.size(), MAX_CAUSES));
    String more =
        errors.size() > MAX_CAUSES ? ", and " + (errors.size() - MAX_CAUSES) + " more errors" : "";
    String aggregate =
        errors.size() == 1
            ? errors.get(0).toString()
            : shown.stream()
                .map(FieldError::toString)
                .collect(Collectors.joining(", ", "[", more + "]"));
    ObjectNode status =
        status(
            422,
            "Invalid",
            Excerpt.of(kind.toString()) + " \"" + Excerpt.of(name) + "\" is invalid: " + aggregate);
    ObjectNode details = status.putObject("details");
    details
        .put("name", Excerpt.of(name))
        .put("group", Excerpt.of(kind.group()))
        .put("kind", Excerpt.of(kind.kind()));
    ArrayNode causes = causesJson(shown);
    if (errors.size() > MAX_CAUSES) {
      // kubectl prints the causes, not the message: say there are more where it looks
      FieldError firstHidden = errors.get(MAX_CAUSES);
      causes
          .addObject()
          .put("reason", firstHidden.type().causeType())
          .put(
              "message",
              "not shown, nor "
                  + (errors.size() - MAX_CAUSES - 1)
                  + " more errors after it (a denial shows at most "
                  + MAX_CAUSES
                  + ")")
          .put("field", firstHidden.field());
    }
    details.set("causes", causes);
    return new AdmissionResponse(Decision.DENIED, JsonPatch.empty(), List.of(), status);
  }

  /**
   * @param code an HTTP-like code for the status, e.g. 400 for a malformed request, 500 for a bug
   * @param message what went wrong
   * @return not allowed; the API server fails the user's request with this message
   */
  public static AdmissionResponse errored(int code, String message) {
    return new AdmissionResponse(
        Decision.ERRORED, JsonPatch.empty(), List.of(), status(code, null, message));
  }

  /**
   * @return a copy with {@code more} appended to the warnings (short strings kubectl shows)
   */
  public AdmissionResponse withWarnings(String... more) {
    List<String> all = new ArrayList<>(warnings);
    all.addAll(List.of(more));
    return new AdmissionResponse(decision, patch, all, status);
  }

  /**
   * @return allowed, patched, denied or errored
   */
  public Decision decision() {
    return decision;
  }

  /**
   * @return whether the request is allowed
   */
  public boolean isAllowed() {
    return allowed;
  }

  /**
   * @return the patch, empty when none
   */
  public JsonPatch patch() {
    return patch;
  }

  /**
   * @return the warnings, unmodifiable
   */
  public List<String> warnings() {
    return warnings;
  }

  /**
   * @return the {@code status.code}, or 200 when allowed
   */
  public int code() {
    return status == null ? 200 : status.path("code").asInt();
  }

  /**
   * @return the {@code status.message}, or {@code ""} when allowed
   */
  public String message() {
    return status == null ? "" : status.path("message").asText();
  }

  /**
   * @param uid the request's uid, echoed
   * @return the {@code AdmissionReview.response} object: {@code uid}, {@code allowed}, and when
   *     present {@code status}, {@code warnings}, and {@code patchType: JSONPatch} with {@code
   *     patch} as base64 of the patch document (only for a non-empty patch)
   */
  public ObjectNode toJson(String uid) {
    ObjectMapper mapper = JsonMappers.shared();
    try (TokenBuffer buffer = new TokenBuffer(mapper, false)) {
      write(buffer, uid);
      return mapper.readTree(buffer.asParser());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a response to memory", e);
    }
  }

  /**
   * Writes the response object, straight into {@code g}: the one definition of its wire form (the
   * reply of every review is written this way; {@link #toJson(String)} reads it back as a tree).
   *
   * @param g a generator where a value is expected, made by an {@code ObjectMapper} (it writes
   *     {@code status} as a tree)
   * @param uid the request's uid, echoed
   * @throws IOException when {@code g} cannot write
   */
  public void write(JsonGenerator g, String uid) throws IOException {
    write(g, uid, patchDocument());
  }

  /**
   * The JSON Patch document of this response, as {@code patch} carries it before base64.
   *
   * <p>Callers that write the reply through a generator of their own make it <em>before</em>
   * opening that generator and hand it to {@link #write(JsonGenerator, String, byte[])}: Jackson
   * recycles one set of buffers per thread, so a generator opened while another is open on the same
   * thread allocates fresh ones (about 10 KB per review).
   *
   * @return the patch as compact JSON (UTF-8), or {@code null} when the response has no patch
   */
  public byte[] patchDocument() {
    return patch.isEmpty() ? null : patch.toBytes();
  }

  /**
   * As {@link #write(JsonGenerator, String)}, with the patch document already made.
   *
   * @param patchDocument {@link #patchDocument()} of this response
   */
  public void write(JsonGenerator g, String uid, byte[] patchDocument) throws IOException {
    g.writeStartObject();
    g.writeStringField("uid", uid);
    g.writeBooleanField("allowed", allowed);
    if (status != null) {
      g.writeFieldName("status");
      g.writeTree(status);
    }
    if (patchDocument != null) {
      g.writeStringField("patchType", "JSONPatch");
      g.writeFieldName("patch");
      g.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, patchDocument, 0, patchDocument.length);
    }
    if (!warnings.isEmpty()) {
      g.writeArrayFieldStart("warnings");
      for (String warning : warnings) {
        g.writeString(warning);
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  @Override
  public String toString() {
    return toJson("").toString();
  }

  private static ObjectNode status(int code, String reason, String message) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.putObject("metadata");
    status.put("status", "Failure");
    status.put("message", message);
    if (reason != null) {
      status.put("reason", reason);
    }
    status.put("code", code);
    return status;
  }

  private static ArrayNode causesJson(List<FieldError> errors) {
    ArrayNode causes = JsonNodeFactory.instance.arrayNode();
    errors.forEach(e -> causes.add(e.toCause()));
    return causes;
  }
}

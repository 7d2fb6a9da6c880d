package dev.ironcore.maintenance.server.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.api.validation.TaintValidation;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.ObjectFields;
import dev.ironcore.maintenance.server.validation.V1alpha1AnnotationsFit;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Mutating rule for {@code compute.ironcore.dev/v1alpha2} MachinePools (domain reference §4
 * "Mutation"): each {@code NoExecute} entry of {@code spec.taints} gets {@code timeAdded}, the time
 * delayed eviction counts {@code tolerationSeconds} from.
 *
 * <ul>
 *   <li>A NoExecute taint that the old object already had (same key, effect and value; an absent
 *       value equals {@code ""}) keeps the old object's {@code timeAdded}: a client that drops or
 *       changes it gets it back, so it never moves. An old taint without one stays without.
 *   <li>A NoExecute taint that is new in the request (every one on CREATE; on UPDATE one whose key,
 *       effect and value the old object does not have, e.g. re-added after its removal, or turned
 *       from NoSchedule into NoExecute) gets the current time of the injected clock, RFC 3339 in
 *       UTC with whole seconds (as {@code metav1.Time}). A {@code timeAdded} the request gives it
 *       is kept when it is not earlier than that (a later one delays the eviction); an earlier one
 *       is replaced, with a warning: its {@code tolerationSeconds} would have run out before the
 *       taint was there (a manifest that carries the {@code timeAdded} a removed taint had, as
 *       {@code kubectl apply} users copy it, evicted tolerating Machines at once). Kubernetes'
 *       taint eviction counts from when it sees a taint, whatever its {@code timeAdded}.
 *   <li>A NoExecute taint the old object had with a {@code timeAdded} that is no RFC 3339 date-time
 *       (stored before validation checked it, e.g. through v1alpha1) gets the request's own {@code
 *       timeAdded} when that is one, else the current time: the stored value would make the API
 *       server refuse this write (v1alpha2's {@code format: date-time}).
 *   <li>When the times set here would make the object's annotations in v1alpha1 total more than 256
 *       KiB ({@link V1alpha1AnnotationsFit}, which the validating webhook also runs), the request
 *       is refused with that rule's 422 instead of patched.
 *   <li>A NoSchedule taint gets no {@code timeAdded}, but one the old object already had (same key,
 *       value and effect) keeps the old object's when that is an RFC 3339 date-time: a client that
 *       drops or changes it gets it back (a v1alpha1 replace without the {@code v1alpha2-fields}
 *       annotation dropped it without a word).
 *   <li>Other effects, entries that are not objects, other versions (v1alpha1 has no {@code
 *       timeAdded}), objects being deleted, DELETE, CONNECT and subresources: no patch.
 * </ul>
 *
 * Registered for v1alpha2 with {@code matchPolicy: Equivalent}, so the API server converts a
 * v1alpha1 request to v1alpha2 before calling this webhook.
 */
public final class TaintTimeAddedMutator implements AdmissionHandler {
  private static final ObjectFields FIELDS = ObjectFields.only("spec.taints");

  /**
   * The validating webhook's rule, run on the object as this patch leaves it: the API server
   * converts a v1alpha1 request back to v1alpha1 after this webhook, and when the {@code timeAdded}
   * set here is what pushes the annotations over 256 KiB it fails that conversion with a 500
   * ({@code ... returned invalid metadata: metadata.annotations: Too long}) before any validating
   * webhook runs.
   */
  private static final V1alpha1AnnotationsFit FITS_V1ALPHA1 = V1alpha1AnnotationsFit.taints();

  private final Clock clock;

  /**
   * @param clock the time a new taint was added
   */
  public TaintTimeAddedMutator(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Reads {@code metadata} and {@code spec.taints}. */
  @Override
  public ObjectFields objectFields() {
    return FIELDS;
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    if (!request.createsOrUpdatesLiveObject() || !"v1alpha2".equals(request.kind().version())) {
      return AdmissionResponse.allowed();
    }
    JsonNode taints = request.object().at("/spec/taints");
    if (!taints.isArray()) {
      return AdmissionResponse.allowed();
    }
    Map<KeyValue, JsonNode> oldTaints =
        oldTaints(request.oldObject() == null ? null : request.oldObject().at("/spec/taints"));
    Instant nowInstant = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS);
    TextNode now = TextNode.valueOf(nowInstant.toString());
    JsonPatch.Builder patch = JsonPatch.builder();
    ObjectNode stamped = null; // the object as the patch leaves it, copied at the first change
    List<String> backdated = new java.util.ArrayList<>();
    List<String> unchanged = new java.util.ArrayList<>(); // a stored time the request changed
    for (int i = 0; i < taints.size(); i++) {
      JsonNode taint = taints.get(i);
      String effect = taint.isObject() ? KubeObjects.text(taint, "effect") : null;
      boolean noExecute = TaintEffect.NO_EXECUTE.equals(effect);
      if (!noExecute && !TaintEffect.NO_SCHEDULE.equals(effect)) {
        continue;
      }
      JsonNode old = oldTaints.get(KeyValue.of(taint));
      JsonNode oldTime = old == null ? null : KubeObjects.member(old, "timeAdded");
      JsonNode present = KubeObjects.member(taint, "timeAdded");
      // a stored time that is no date-time (written before validation checked it) is not kept
      boolean mend = oldTime != null && !TaintValidation.isDateTime(oldTime);
      JsonNode wanted;
      if (!noExecute) {
        // a NoSchedule taint gets no time, but keeps a stored one (fresh eyes, session 42: a
        // v1alpha1 replace without the v1alpha2-fields annotation dropped it without a word)
        if (old == null || oldTime == null || mend) {
          continue;
        }
        wanted = oldTime;
      } else if (old == null || mend) {
        if (present != null && (old == null || TaintValidation.isDateTime(present))) {
          if (old != null || !earlier(present, nowInstant)) {
            continue; // a taint that comes with its own time keeps it, unless new and backdated
          }
          backdated.add(
              "spec.taints[" + i + "] (" + name(taint, effect) + ") timeAdded " + present.asText());
        }
        wanted = now;
      } else {
        wanted = oldTime; // null: an old taint without one stays without
      }
      String path = "/spec/taints/" + i + "/timeAdded";
      if (wanted == null || wanted.equals(present)) {
        continue;
      }
      if (present != null && wanted == oldTime) {
        // the client changed the stored time, not dropped it: say that it is not taken (fresh
        // eyes, session 46: kubectl printed "patched" and the time stayed as it was)
        unchanged.add(
            "spec.taints["
                + i
                + "] ("
                + name(taint, effect)
                + ") timeAdded "
                // a value that is no string as written (fresh eyes, session 46: it showed empty)
                + (present.isTextual() ? present.asText() : present.toString()));
      }
      if (taint.has("timeAdded")) {
        patch.replace(path, wanted);
      } else {
        patch.add(path, wanted);
      }
      if (stamped == null) {
        stamped = request.object().deepCopy();
      }
      ((ObjectNode) stamped.at("/spec/taints").get(i)).set("timeAdded", wanted);
    }
    if (stamped != null) {
      List<FieldError> errors = FITS_V1ALPHA1.validate(request.withObject(stamped));
      if (!errors.isEmpty()) {
        return AdmissionResponse.invalid(request.kind(), request.displayName(), errors);
      }
    }
    AdmissionResponse patched = AdmissionResponse.patched(patch.build());
    if (!unchanged.isEmpty()) {
      patched =
          patched.withWarnings(
              listed(unchanged, "taints this write keeps carry another timeAdded")
                  + (unchanged.size() == 1 ? " is not taken" : ": not taken")
                  + ": a taint keeps the time it was added (remove the taint and add it again to"
                  + " restart that time)");
    }
    if (backdated.isEmpty()) {
      return patched;
    }
    return patched.withWarnings(
        (backdated.size() == 1
                ? backdated.get(0)
                : backdated.size()
                    + " taints new in this write carry an earlier timeAdded: "
                    + String.join(", ", backdated.subList(0, Math.min(3, backdated.size())))
                    + (backdated.size() > 3 ? ", ..." : ""))
            + (backdated.size() == 1 ? " lies before this write, so it is set to " : "; set to ")
            + now.asText()
            + ": a NoExecute taint added now counts tolerationSeconds from now (the time a removed"
            + " taint had would evict tolerating Machines at once)");
  }

  /** One entry, or how many with the first three: {@code n <what>: a, b, c, ...}. */
  private static String listed(List<String> entries, String what) {
    return entries.size() == 1
        ? entries.get(0)
        : entries.size()
            + " "
            + what
            + ": "
            + String.join(", ", entries.subList(0, Math.min(3, entries.size())))
            + (entries.size() > 3 ? ", ..." : "");
  }

  /** {@code key=value:effect}, as the eviction warnings name a taint. */
  private static String name(JsonNode taint, String effect) {
    return KubeObjects.text(taint, "key")
        + (value(taint).isEmpty() ? "" : "=" + value(taint))
        + ":"
        + effect;
  }

  /**
   * The taint's value, "" when absent (as the eviction warnings name a taint: key=value:effect).
   */
  private static String value(JsonNode taint) {
    String v = KubeObjects.text(taint, "value");
    return v == null ? "" : v;
  }

  /** Whether {@code time} (an RFC 3339 date-time) lies before {@code now}. */
  private static boolean earlier(JsonNode time, Instant now) {
    Instant t =
        dev.ironcore.maintenance.api.compute.TimeAdded.parse(
            time.asText().toUpperCase(java.util.Locale.ROOT));
    return t != null && t.isBefore(now);
  }

  /**
   * @return the taints of {@code oldTaints} by key, value and effect, the first of each (a map, not
   *     a search per taint: a fresh-eyes check's UPDATE of 30,000 new against 70,000 old taints
   *     took 26 s of CPU)
   */
  private static Map<KeyValue, JsonNode> oldTaints(JsonNode oldTaints) {
    if (oldTaints == null || !oldTaints.isArray()) {
      return Map.of();
    }
    Map<KeyValue, JsonNode> byKeyValue = new HashMap<>();
    for (JsonNode old : oldTaints) {
      if (old.isObject()) {
        byKeyValue.putIfAbsent(KeyValue.of(old), old);
      }
    }
    return byKeyValue;
  }

  /**
   * A taint's key, value and effect; an absent one is {@code ""}. Comparable, so that keys of one
   * hash cost a logarithmic search in the map, not a linear one ({@link
   * dev.ironcore.maintenance.api.json.HashKey}).
   */
  private record KeyValue(String key, String value, String effect) implements Comparable<KeyValue> {
    static KeyValue of(JsonNode taint) {
      return new KeyValue(
          KubeObjects.text(taint, "key"),
          KubeObjects.text(taint, "value"),
          KubeObjects.text(taint, "effect"));
    }

    private static final java.util.Comparator<String> TEXT =
        java.util.Comparator.nullsFirst(java.util.Comparator.<String>naturalOrder());

    @Override
    public int compareTo(KeyValue other) {
      return java.util.Comparator.comparing(KeyValue::key, TEXT)
          .thenComparing(KeyValue::value, TEXT)
          .thenComparing(KeyValue::effect, TEXT)
          .compare(this, other);
    }
  }
}

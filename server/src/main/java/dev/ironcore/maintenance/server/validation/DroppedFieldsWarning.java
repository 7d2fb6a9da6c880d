package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import java.util.List;

/**
 * Warns (kubectl prints {@code Warning: ...}) when a v1alpha1 UPDATE drops v1alpha2-only members of
 * entries that stay, by removing or changing the annotation {@value
 * Names#V1ALPHA2_FIELDS_ANNOTATION} (or the entries it records, e.g. one of several twins): e.g. a
 * {@code kubectl replace} or a PUT from a tool that owns the whole annotation map, sent without it
 * or with a stale copy, turns {@code tolerationSeconds} tolerations into ones that tolerate for
 * good. Allowed all the same (removing the annotation is how a v1alpha1 client drops those members
 * on purpose). Never denies; the inner decision stands. Machines only: a MachinePool's {@code
 * timeAdded} is put back by the mutating webhook ({@code TaintTimeAddedMutator} keeps an existing
 * taint's).
 */
public final class DroppedFieldsWarning implements AdmissionHandler {
  private final AdmissionHandler inner;
  private final String pointer;
  private final String path;
  private final String member;
  private final Consequence consequence;

  /** What losing the member means, for one entry and for several. */
  private record Consequence(String singular, String plural) {}

  private DroppedFieldsWarning(
      AdmissionHandler inner, String pointer, String path, String member, Consequence consequence) {
    this.inner = inner;
    this.pointer = pointer;
    this.path = path;
    this.member = member;
    this.consequence = consequence;
  }

  /** For Machines: {@code spec.tolerations[].tolerationSeconds}. */
  public static DroppedFieldsWarning tolerations(AdmissionHandler inner) {
    return new DroppedFieldsWarning(
        inner,
        "/spec/tolerations",
        "spec.tolerations",
        "tolerationSeconds",
        // true also of an entry whose key or effect changed: it no longer tolerates the old taint
        // at all (fresh eyes, session 40: "it now tolerates the taint for good" said otherwise)
        new Consequence(
            "a toleration without them tolerates matching NoExecute taints for good",
            "a toleration without them tolerates matching NoExecute taints for good"));
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    AdmissionResponse response = inner.handle(request);
    if (!response.isAllowed()
        || request.operation() != Operation.UPDATE
        || request.object() == null
        || request.oldObject() == null
        || !ComputeVersions.V1ALPHA1.equals(request.object().path("apiVersion").asText())
        || !annotated(request.oldObject())) {
      return response;
    }
    int dropped =
        lost(
            ListFieldValidator.asStored(request.oldObject()).at(pointer),
            ListFieldValidator.asStored(request.object()).at(pointer));
    if (dropped == 0) {
      return response;
    }
    if (applied(request)) {
      // kubectl apply: the entries are stored as its manifest gives them (the mutating webhook
      // removes seconds the manifest stopped giving), so sending the annotation back is no advice
      return response.withWarnings(
          "this v1alpha1 apply stores "
              + path
              + " as its manifest gives them: "
              + loss(dropped)
              + "; give them in the manifest to keep them");
    }
    return response.withWarnings(
        "this v1alpha1 update "
            + (annotated(request.object())
                ? "changed the annotation "
                    + Names.V1ALPHA2_FIELDS_ANNOTATION
                    + " (or entries it records)"
                : "removed the annotation " + Names.V1ALPHA2_FIELDS_ANNOTATION)
            + ", which keeps the "
            + member
            + " of "
            + path
            + " in v1alpha1: "
            + loss(dropped)
            + "; send the annotation back as it was read to keep them, or write "
            + member
            + " in v1alpha2");
  }

  /** E.g. {@code 1 entry loses its tolerationSeconds (a toleration without them ...)}. */
  private String loss(int dropped) {
    return dropped
        + (dropped == 1 ? " entry loses its " : " entries lose their ")
        + member
        + " ("
        + (dropped == 1 ? consequence.singular() : consequence.plural())
        + ")";
  }

  /** Whether kubectl's record of the applied manifest changed: a {@code kubectl apply}. */
  private static boolean applied(AdmissionRequest request) {
    JsonNode now = request.object().path("metadata").path("annotations");
    JsonNode before = request.oldObject().path("metadata").path("annotations");
    return now.has(Names.LAST_APPLIED_ANNOTATION)
        && !now.get(Names.LAST_APPLIED_ANNOTATION)
            .equals(before.get(Names.LAST_APPLIED_ANNOTATION));
  }

  private static boolean annotated(JsonNode object) {
    return object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION);
  }

  /**
   * How many entries of {@code before} that had the member are in {@code after} without it, equal
   * otherwise, or changed. Per look (the entry without the member), at most as many as had it:
   *
   * <ul>
   *   <li>as many look-alikes before as after: paired in list order (the n-th {@code {key: up}}
   *       before with the n-th after; conversion keeps their order), so twins that differ only in
   *       the member count only where the entry at that place lost it (a write-back as read warns
   *       nothing: fresh eyes, session 35; dropping the plain twin while the other loses its
   *       seconds warns 1: a multiset count missed it);
   *   <li>look-alikes added or removed: which ones stayed cannot be told, and conversion drops
   *       their members: the entries of that look that could have kept one and are without (fresh
   *       eyes, session 46: removing the plain one of {@code {key: up}} and {@code {key: up,
   *       tolerationSeconds: 10}} left one toleration for good without a word);
   *   <li>entries changed (a JSON Patch of one toleration's key through v1alpha1; fresh eyes,
   *       sessions 38 and 39): as many as both disappeared from a look that had the member and
   *       appeared new without it ({@link #changed}), at most as many as left their looks uncounted
   *       (review, session 46: such an entry was counted twice; counted in the looks' order, one
   *       was missed where a twin was lost in the same write).
   * </ul>
   *
   * Entries removed are not counted.
   */
  private int lost(JsonNode before, JsonNode after) {
    var was = withMember(before);
    var now = withMember(after);
    int lost = 0;
    // entries with the member that left their look and are not counted there: where the changed
    // entries can come from (summed, so the count does not depend on the looks' order)
    int room = 0;
    for (var entry : was.entrySet()) {
      List<Boolean> b = entry.getValue();
      List<Boolean> a = now.getOrDefault(entry.getKey(), List.of());
      int withBefore = count(b, true);
      if (b.size() == a.size()) {
        for (int i = 0; i < b.size(); i++) {
          if (b.get(i) && !a.get(i)) {
            lost++;
          }
        }
      } else {
        int here = Math.max(0, Math.min(withBefore, a.size()) - count(a, true));
        lost += here;
        room += Math.min(Math.max(0, b.size() - a.size()), withBefore - here);
      }
    }
    return lost + Math.min(changed(was, now), room);
  }

  /**
   * Entries that had the member and were changed: as many as both disappeared (entries with the
   * member whose form without it is gone from {@code after}) and appeared (entries without the
   * member whose form is new in {@code after}) — a change is one entry gone and one new. A reorder
   * moves nothing in or out (fresh eyes: an index-by-index comparison warned about reorders); a
   * removal alone adds nothing new; a change beside an added entry still counts.
   */
  private static int changed(
      java.util.Map<dev.ironcore.maintenance.api.json.HashKey.Json, List<Boolean>> was,
      java.util.Map<dev.ironcore.maintenance.api.json.HashKey.Json, List<Boolean>> now) {
    int disappeared = 0;
    for (var entry : was.entrySet()) {
      int gone = entry.getValue().size() - now.getOrDefault(entry.getKey(), List.of()).size();
      disappeared += Math.max(0, Math.min(gone, count(entry.getValue(), true)));
    }
    int appeared = 0;
    for (var entry : now.entrySet()) {
      int fresh = entry.getValue().size() - was.getOrDefault(entry.getKey(), List.of()).size();
      appeared += Math.max(0, Math.min(fresh, count(entry.getValue(), false)));
    }
    return Math.min(disappeared, appeared);
  }

  private static int count(List<Boolean> flags, boolean value) {
    return (int) flags.stream().filter(f -> f == value).count();
  }

  /** Per entry-without-the-member, in list order: whether each such entry has the member. */
  private java.util.Map<dev.ironcore.maintenance.api.json.HashKey.Json, List<Boolean>> withMember(
      JsonNode entries) {
    java.util.Map<dev.ironcore.maintenance.api.json.HashKey.Json, List<Boolean>> byKey =
        new java.util.HashMap<>();
    for (JsonNode entry : entries) {
      if (entry instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
        boolean with = object.has(member);
        var key =
            new dev.ironcore.maintenance.api.json.HashKey.Json(
                with ? object.deepCopy().without(member) : object);
        byKey.computeIfAbsent(key, k -> new java.util.ArrayList<>()).add(with);
      }
    }
    return byKey;
  }
}

package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;

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
        new Consequence(
            "it now tolerates the taint for good", "they now tolerate the taint for good"));
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
            + dropped
            + (dropped == 1 ? " entry loses its " : " entries lose their ")
            + member
            + " ("
            + (dropped == 1 ? consequence.singular() : consequence.plural())
            + "); send the annotation back as it was read to keep them, or write "
            + member
            + " in v1alpha2");
  }

  private static boolean annotated(JsonNode object) {
    return object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION);
  }

  /**
   * How many entries of {@code before} that had the member are in {@code after} without it, equal
   * otherwise: per entry-without-the-member, the fewer of the entries that no longer carry the
   * member and the plain entries that were added. Twins that differ only in the member (e.g. {@code
   * {key: up}} beside {@code {key: up, tolerationSeconds: 30}}, both as v1alpha1 shows them) count
   * only when the plain ones grow (fresh eyes: every v1alpha1 write of such a Machine, a verbatim
   * write-back too, warned that one loses its seconds). Entries removed or changed are not counted.
   */
  private int lost(JsonNode before, JsonNode after) {
    java.util.Map<dev.ironcore.maintenance.api.json.HashKey.Json, int[]> counts =
        new java.util.HashMap<>();
    count(before, counts, 0);
    count(after, counts, 2);
    int lost = 0;
    for (int[] c : counts.values()) {
      // c: [with member before, plain before, with member after, plain after]
      lost += Math.max(0, Math.min(c[0] - c[2], c[3] - c[1]));
    }
    return lost;
  }

  private void count(
      JsonNode entries,
      java.util.Map<dev.ironcore.maintenance.api.json.HashKey.Json, int[]> counts,
      int offset) {
    for (JsonNode entry : entries) {
      if (entry instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
        boolean with = object.has(member);
        var key =
            new dev.ironcore.maintenance.api.json.HashKey.Json(
                with ? object.deepCopy().without(member) : object);
        counts.computeIfAbsent(key, k -> new int[4])[offset + (with ? 0 : 1)]++;
      }
    }
  }
}

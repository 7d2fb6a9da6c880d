package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A Machine or MachinePool must stay readable in the other version: the API server reads at most
 * 10,000 levels of JSON (its decoder's limit, as it stores objects), and a ConversionReview's reply
 * holds each converted object 3 levels down ({@code response.convertedObjects[i]}), so an object
 * nested more than {@value #MAX_DEPTH} levels (the object itself being level 1) is stored but every
 * read, list and watch of it in the other version fails ({@code conversion webhook ... failed:
 * couldn't get version/kind; json parse error: ... exceeded max depth}): one object a tenant can
 * create would stop every v1alpha1 list of its kind (a fresh-eyes check). Refused on CREATE and on
 * an UPDATE that nests deeper than before (so an object stored before this rule can be changed).
 * Writes through the status subresource are not sent to the webhooks.
 */
public final class ReadableDepth implements Validator {
  /** The deepest object readable in the other version: 10,000 - 3. */
  static final int MAX_DEPTH = 10_000 - 3;

  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    Deepest deepest = deepest(request.object(), request.objectDepth());
    if (deepest.depth() <= MAX_DEPTH) {
      return List.of();
    }
    if (request.operation() == Operation.UPDATE
        && request.oldObject() != null
        && deepest.depth() <= deepest(request.oldObject(), request.oldObjectDepth()).depth()) {
      return List.of();
    }
    return List.of(
        FieldError.forbidden(
            deepest.field(),
            "nested "
                + deepest.depth()
                + " levels deep (the object being level 1), more than "
                + MAX_DEPTH
                + ": the API server reads at most 10,000 levels and a conversion reply holds the"
                + " object 3 levels down, so it could not be read in the other API version, and"
                + " every list and watch of its kind in that version would fail; nest it less"));
  }

  /**
   * @return true: an object being deleted must stay readable too (a deep spec patched onto a
   *     Machine held by a finalizer was stored, a fresh-eyes check); a finalizer-only update never
   *     nests deeper, so it is never denied by this rule
   */
  @Override
  public boolean appliesWhileDeleting() {
    return true;
  }

  /** The object's depth and the top-level member that reaches it. */
  private record Deepest(int depth, String field) {}

  /**
   * The depth of {@code object} as sent: {@code measured} when the review reader measured it (which
   * counts {@code metadata.managedFields}, left out of the tree), else the tree's; the field is the
   * tree's deepest member, or {@code metadata.managedFields} when only the measure is deeper (their
   * {@code fieldsV1} mirror the object's fields about four levels deeper).
   */
  private static Deepest deepest(JsonNode object, int measured) {
    Deepest tree = deepest(object);
    return measured > tree.depth() ? new Deepest(measured, "metadata.managedFields") : tree;
  }

  /** Depth of containers, iteratively (an object may nest 10,000 levels). */
  private static Deepest deepest(JsonNode object) {
    if (object == null || !object.isContainerNode()) {
      return new Deepest(0, "");
    }
    int best = 1;
    String field = "";
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> member = it.next();
      int depth = 1 + depth(member.getValue());
      if (depth > best) {
        best = depth;
        field = member.getKey();
      }
    }
    return new Deepest(best, field);
  }

  private static int depth(JsonNode root) {
    if (!root.isContainerNode()) {
      return 0;
    }
    int max = 0;
    ArrayDeque<Iterator<JsonNode>> stack = new ArrayDeque<>();
    stack.push(root.elements());
    while (!stack.isEmpty()) {
      max = Math.max(max, stack.size());
      Iterator<JsonNode> top = stack.peek();
      if (!top.hasNext()) {
        stack.pop();
        continue;
      }
      JsonNode next = top.next();
      if (next.isContainerNode()) {
        stack.push(next.elements());
      }
    }
    return max;
  }
}

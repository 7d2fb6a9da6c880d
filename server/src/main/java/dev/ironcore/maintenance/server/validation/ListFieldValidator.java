package dev.ironcore.maintenance.server.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.json.HashKey;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.api.validation.TaintValidation;
import dev.ironcore.maintenance.api.validation.TolerationValidation;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import dev.ironcore.maintenance.server.conversion.ConversionException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Runs one pure list validation of the api module on a field of the object: {@link #taints()} for
 * MachinePools, {@link #tolerations()} for Machines (domain reference §4 "Validation").
 *
 * <p>On UPDATE, entries the old object already had are not validated again ("ratcheting", as the
 * API server does for CRD schema validation): IronCore validates none of this, so objects stored
 * before this webhook was installed may carry invalid entries, and denying every later update of
 * them would, for example, block the controller from adding the maintenance taints to such a pool.
 * Entries are matched by value, not by index: an entry of the new list that is JSON-equal to an
 * entry of the old list is old wherever it moved (removing or inserting an entry before it changes
 * nothing), each old entry matching at most one new entry (an added exact copy is new). New and
 * changed entries are fully validated, and a duplicate is reported when at least one of the two
 * entries is new. A list that is unchanged as a whole (even one that is not an array) is not
 * validated at all.
 */
public final class ListFieldValidator implements Validator {
  /**
   * A pure list validation that can skip entries: {@link TaintValidation#validate(JsonNode, String,
   * IntPredicate)}.
   */
  @FunctionalInterface
  public interface Rule {
    /**
     * @param list the list node; missing or JSON null when absent
     * @param path its field path, e.g. {@code spec.taints}
     * @param isNew index → whether that entry is new and so to be validated
     * @return the errors, with paths like {@code spec.taints[1].effect}; empty when valid
     */
    List<FieldError> validate(JsonNode list, String path, IntPredicate isNew);
  }

  private final String pointer;
  private final String path;
  private final Rule rule;
  private final Rule whileDeleting;

  /**
   * @param pointer where the list is in the object, e.g. {@code /spec/taints}
   * @param path the same as a field path for errors, e.g. {@code spec.taints}
   * @param rule the validation of the list
   * @param whileDeleting the validation of the list of an object being deleted; null for none
   */
  public ListFieldValidator(String pointer, String path, Rule rule, Rule whileDeleting) {
    this.pointer = Objects.requireNonNull(pointer, "pointer");
    this.path = Objects.requireNonNull(path, "path");
    this.rule = Objects.requireNonNull(rule, "rule");
    this.whileDeleting = whileDeleting;
  }

  /**
   * @return validation of a MachinePool's {@code spec.taints} ({@link TaintValidation}); while the
   *     pool is being deleted only {@link TaintValidation#validateSchemaTypes}
   */
  public static ListFieldValidator taints() {
    return new ListFieldValidator(
        "/spec/taints",
        "spec.taints",
        TaintValidation::validate,
        TaintValidation::validateSchemaTypes);
  }

  /**
   * @return validation of a Machine's {@code spec.tolerations} ({@link TolerationValidation});
   *     while the Machine is being deleted only {@link TolerationValidation#validateSchemaTypes}
   *     (fresh eyes, session 44: a v1alpha1 write stored {@code tolerationSeconds: "abc"} on a
   *     deleting Machine, which the controller could not decode and whose managed fields the API
   *     server dropped)
   */
  public static ListFieldValidator tolerations() {
    return new ListFieldValidator(
        "/spec/tolerations",
        "spec.tolerations",
        TolerationValidation::validate,
        TolerationValidation::validateSchemaTypes);
  }

  /**
   * @return true when a rule for objects being deleted was given
   */
  @Override
  public boolean appliesWhileDeleting() {
    return whileDeleting != null;
  }

  /**
   * @param request a CREATE or UPDATE request
   * @return on CREATE every error of the list; on UPDATE those of its new entries (see the class
   *     comment)
   */
  @Override
  public List<FieldError> validate(AdmissionRequest request) {
    return validate(request, rule);
  }

  /**
   * @param request an UPDATE of an object being deleted
   * @return the errors of the rule for objects being deleted, for new entries only
   */
  @Override
  public List<FieldError> validateWhileDeleting(AdmissionRequest request) {
    return whileDeleting == null ? List.of() : validate(request, whileDeleting);
  }

  private List<FieldError> validate(AdmissionRequest request, Rule rule) {
    JsonNode stored = asStored(request.object());
    List<FieldError> errors = validateStored(stored.at(pointer), request, rule);
    if (stored == request.object()) {
      return errors;
    }
    JsonNode sent = request.object().at(pointer);
    return errors.stream().map(e -> fromAnnotation(e, sent)).toList();
  }

  private List<FieldError> validateStored(JsonNode list, AdmissionRequest request, Rule rule) {
    if (request.operation() != Operation.UPDATE || request.oldObject() == null) {
      return rule.validate(list, path, i -> true);
    }
    JsonNode old = asStored(request.oldObject()).at(pointer);
    if (list.equals(old)) {
      return List.of();
    }
    return rule.validate(list, path, newEntries(list, old));
  }

  /**
   * An error of a v1alpha1 write about a member only v1alpha2 has ({@code tolerationSeconds},
   * {@code timeAdded}) that the entry as this webhook sees it does not carry: in v1alpha1 that
   * member came from the annotation, not from the entry the field path names (the client put it
   * there, or wrote it on the entry and the API server moved it there when it converted the object
   * a mutating webhook had patched back to v1alpha1), so the message says where to find it.
   *
   * @param sent the list as the v1alpha1 client sent it
   */
  private FieldError fromAnnotation(FieldError e, JsonNode sent) {
    java.util.regex.Matcher index =
        java.util.regex.Pattern.compile("^" + java.util.regex.Pattern.quote(path) + "\\[(\\d+)\\]")
            .matcher(e.field());
    JsonNode entry = index.find() ? sent.path(Integer.parseInt(index.group(1))) : sent;
    boolean aboutMember =
        V1ALPHA2_MEMBERS.stream()
            .anyMatch(
                m -> (e.field().endsWith("." + m) || e.detail().contains(m)) && !entry.has(m));
    return aboutMember
        ? new FieldError(
            e.field(),
            e.type(),
            e.badValue(),
            e.detail()
                + (e.detail().isEmpty() ? "" : " ")
                + "(in v1alpha1 from the annotation "
                + Names.V1ALPHA2_FIELDS_ANNOTATION
                // fresh eyes (session 46): a timeAdded written on the taint itself got this
                // suffix once the mutating webhook stamped another taint (the API server converts
                // the patched object back to v1alpha1, which moves every such member there)
                + ", where the API server also moves one written on the entry once a mutating"
                + " webhook changed the object)")
        : e;
  }

  /** The list members only v1alpha2 has, kept in the annotation in v1alpha1. */
  private static final List<String> V1ALPHA2_MEMBERS = List.of("tolerationSeconds", "timeAdded");

  /**
   * The object as the API server stores it: a v1alpha1 object's {@value
   * Names#V1ALPHA2_FIELDS_ANNOTATION} annotation put back into its spec (and v1alpha2-only members
   * sent on its entries kept there), as up-conversion does ({@link ComputeConverter}), so that a
   * v1alpha1 client cannot store through the annotation what a v1alpha2 write is denied (e.g. a
   * {@code tolerationSeconds} that is not a number, or one on a NoSchedule toleration). Any other
   * object is returned as it is; an annotation that is not what down-conversion writes carries
   * nothing into the spec, as in up-conversion ({@link V1alpha2FieldsReadable} refuses a new one).
   *
   * @param object {@code request.object} or {@code request.oldObject}
   * @return the hub-version (v1alpha2) view, a copy, or {@code object} itself
   */
  static JsonNode asStored(JsonNode object) {
    if (!ComputeVersions.V1ALPHA1.equals(object.path("apiVersion").asText())
        || !(object.path("metadata").path("annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION)
            || hasV1alpha2Member(object))) {
      return object;
    }
    try {
      return ComputeConverter.convert(object, ComputeVersions.V1ALPHA2);
    } catch (ConversionException e) {
      return object;
    }
  }

  /**
   * Whether an entry of {@code spec.tolerations} or {@code spec.taints} carries a member only
   * v1alpha2 has: a v1alpha1 client may send it on the entry itself, where up-conversion keeps it
   * (a fresh-eyes check: 3,500 taints with {@code timeAdded} sent so in v1alpha1 were measured as
   * not needing the annotation, stored, and broke every v1alpha1 list of pools).
   */
  private static boolean hasV1alpha2Member(JsonNode object) {
    for (String list : List.of("/spec/tolerations", "/spec/taints")) {
      for (JsonNode entry : object.at(list)) {
        if (V1ALPHA2_MEMBERS.stream().anyMatch(entry::has)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * @return index in {@code list} → false when the entry is JSON-equal to an entry of {@code old}
   *     that no earlier entry of {@code list} matched already; true for every other entry
   */
  static IntPredicate newEntries(JsonNode list, JsonNode old) {
    if (!list.isArray()) {
      return i -> true;
    }
    // keys that compare: a list of colliding entries costs no quadratic search (HashKey)
    Map<HashKey.Json, Integer> unmatched = new HashMap<>();
    if (old.isArray()) {
      old.forEach(entry -> unmatched.merge(new HashKey.Json(entry), 1, Integer::sum));
    }
    boolean[] fresh = new boolean[list.size()];
    for (int i = 0; i < fresh.length; i++) {
      HashKey.Json key = new HashKey.Json(list.get(i));
      Integer left = unmatched.get(key);
      fresh[i] = left == null;
      if (left != null) {
        unmatched.compute(key, (k, n) -> n == 1 ? null : n - 1);
      }
    }
    return i -> i < 0 || i >= fresh.length || fresh[i];
  }
}

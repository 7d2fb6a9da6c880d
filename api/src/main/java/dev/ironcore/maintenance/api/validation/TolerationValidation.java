package dev.ironcore.maintenance.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.compute.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Validates Machine tolerations (domain reference §4 "Validation (our superset)", with the
 * semantics of Kubernetes' {@code ValidateTolerations}; IronCore itself checks none of this). Every
 * error is reported, in list order:
 *
 * <ul>
 *   <li>{@code key}: when non-empty, Invalid unless a qualified name (one error per problem);
 *   <li>{@code operator}: Unsupported value unless empty, {@code Equal} or {@code Exists}; Invalid
 *       when the key is empty and the operator is not {@code Exists} (an empty key matches all
 *       keys, which only makes sense for any value);
 *   <li>{@code value}: with {@code Exists}, Invalid unless empty; with {@code Equal} or an empty
 *       operator, Invalid unless a label value. (Kubernetes reports value problems at {@code
 *       operator}; we report them at {@code value}, where they are.)
 *   <li>{@code effect}: when non-empty, Unsupported value unless one of {@link
 *       TaintEffect#SUPPORTED};
 *   <li>{@code tolerationSeconds} (our v1alpha2; checked whenever present): Invalid unless an
 *       integer; and then {@code effect} is Invalid unless {@code NoExecute}.
 * </ul>
 *
 * A member of the wrong JSON type is Invalid ("must be a string"). Tolerations may repeat (as in
 * Kubernetes), so there is no Duplicate error.
 *
 * <p>For ratcheting on UPDATE, {@link #validate(JsonNode, String, IntPredicate)} checks only the
 * tolerations a caller marks as new.
 */
public final class TolerationValidation {
  /** The operators, in the order error messages list them. */
  public static final List<String> OPERATORS = List.of(Toleration.EQUAL, Toleration.EXISTS);

  private TolerationValidation() {}

  /**
   * @param tolerations the {@code spec.tolerations} JSON array; null, JSON null or missing means
   *     none
   * @param path its field path, e.g. {@code spec.tolerations}
   * @return all errors, with paths like {@code spec.tolerations[0].operator}; empty when valid
   */
  public static List<FieldError> validate(JsonNode tolerations, String path) {
    return validate(tolerations, path, i -> true);
  }

  /**
   * Validates only some of the tolerations, for ratcheting: one that is not new (already stored as
   * it is) gets none of its errors reported.
   *
   * @param tolerations the {@code spec.tolerations} JSON array; null, JSON null or missing means
   *     none
   * @param path its field path, e.g. {@code spec.tolerations}
   * @param isNew index in {@code tolerations} → whether that toleration is to be validated
   * @return the errors of the new tolerations, at their indexes; Invalid at {@code path} when
   *     {@code tolerations} is not an array; empty when valid
   */
  public static List<FieldError> validate(JsonNode tolerations, String path, IntPredicate isNew) {
    List<FieldError> errors = new ArrayList<>();
    if (!JsonFields.isCheckableList(tolerations, path, "tolerations", errors)) {
      return errors;
    }
    for (int i = 0; i < tolerations.size(); i++) {
      if (!isNew.test(i)) {
        continue;
      }
      String item = path + "[" + i + "]";
      JsonNode toleration = tolerations.get(i);
      if (JsonFields.isObject(toleration, item, "{key, operator, value, effect}", errors)) {
        validateOne(toleration, item, errors);
      }
    }
    return errors;
  }

  /**
   * Only what the v1alpha2 schema requires of the member v1alpha1 lacks: {@code tolerationSeconds},
   * when present and not null, an int64 ({@code type: integer, format: int64}), for the tolerations
   * marked new. The API server checks a write against the schema of the version it is sent in, and
   * v1alpha1 keeps unknown members of a toleration, so a v1alpha1 write could store a value no
   * v1alpha2 write can, which every later v1alpha2 reader fails on. For objects being deleted,
   * where no other rule applies.
   *
   * @param tolerations the {@code spec.tolerations} list in its v1alpha2 form; anything but an
   *     array means nothing to check
   * @param path its field path, e.g. {@code spec.tolerations}
   * @param isNew index → whether that toleration is to be checked
   * @return Invalid at {@code spec.tolerations[i].tolerationSeconds} for each bad value; else empty
   */
  public static List<FieldError> validateSchemaTypes(
      JsonNode tolerations, String path, IntPredicate isNew) {
    List<FieldError> errors = new ArrayList<>();
    if (tolerations == null || !tolerations.isArray()) {
      return errors;
    }
    for (int i = 0; i < tolerations.size(); i++) {
      JsonNode seconds = tolerations.get(i).get("tolerationSeconds");
      if (isNew.test(i) && seconds != null && !seconds.isNull()) {
        validateSeconds(seconds, path + "[" + i + "]", errors);
      }
    }
    return errors;
  }

  private static void validateSeconds(JsonNode seconds, String item, List<FieldError> errors) {
    if (!seconds.isIntegralNumber() || !seconds.canConvertToLong()) {
      errors.add(
          FieldError.invalid(
              item + ".tolerationSeconds",
              seconds,
              "must be an integer number of seconds (int64)"));
    }
  }

  private static void validateOne(JsonNode toleration, String item, List<FieldError> errors) {
    String key = JsonFields.string(toleration, "key", item + ".key", errors);
    if (key != null && !key.isEmpty()) {
      LabelSyntax.qualifiedNameErrors(key)
          .forEach(e -> errors.add(FieldError.invalid(item + ".key", key, e)));
    }
    String operator = JsonFields.string(toleration, "operator", item + ".operator", errors);
    boolean exists = Toleration.EXISTS.equals(operator);
    boolean equal = Toleration.EQUAL.equals(operator) || "".equals(operator);
    // both errors for an empty key with an unknown operator, in this order, as Kubernetes'
    // ValidateTolerations reports them
    if ("".equals(key) && operator != null && !exists) {
      errors.add(
          FieldError.invalid(
              item + ".operator",
              operator,
              "must be Exists when key is empty (an empty key matches all keys and all values)"));
    }
    if (operator != null && !exists && !equal) {
      errors.add(FieldError.notSupported(item + ".operator", operator, OPERATORS));
    }
    String value = JsonFields.string(toleration, "value", item + ".value", errors);
    if (value != null && exists && !value.isEmpty()) {
      errors.add(
          FieldError.invalid(item + ".value", value, "must be empty when operator is Exists"));
    } else if (value != null && equal && !LabelSyntax.isLabelValue(value)) {
      String detail = String.join("; ", LabelSyntax.labelValueErrors(value));
      errors.add(FieldError.invalid(item + ".value", value, detail));
    }
    String effect = JsonFields.string(toleration, "effect", item + ".effect", errors);
    boolean effectOk =
        effect != null && (effect.isEmpty() || TaintEffect.SUPPORTED.contains(effect));
    if (effect != null && !effectOk) {
      errors.add(FieldError.notSupported(item + ".effect", effect, TaintEffect.SUPPORTED));
    }
    JsonNode seconds = toleration.get("tolerationSeconds");
    if (seconds == null || seconds.isNull()) {
      return;
    }
    validateSeconds(seconds, item, errors);
    if (effectOk && !TaintEffect.NO_EXECUTE.equals(effect)) {
      errors.add(
          FieldError.invalid(
              item + ".effect",
              effect,
              "must be NoExecute when tolerationSeconds is set (only NoExecute taints evict)"));
    }
  }
}

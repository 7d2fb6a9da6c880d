package dev.ironcore.maintenance.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Validates MachinePool taints (domain reference §4 "Validation (our superset)", with the semantics
 * of Kubernetes' node taint validation; IronCore itself checks none of this). Every error is
 * reported, in list order:
 *
 * <ul>
 *   <li>{@code key}: Required when empty; Invalid unless a qualified name ({@link
 *       LabelSyntax#qualifiedNameErrors}, one error per problem);
 *   <li>{@code value}: Invalid unless a label value (may be empty);
 *   <li>{@code effect}: Required when empty; Unsupported value unless one of {@link
 *       TaintEffect#SUPPORTED};
 *   <li>the item itself: Duplicate when an earlier taint has the same key and effect (badValue
 *       {@code {key, effect}}).
 * </ul>
 *
 * <ul>
 *   <li>{@code timeAdded} (our v1alpha2; checked whenever present and not null): Invalid unless an
 *       RFC 3339 date-time string with an offset, e.g. {@code 2026-12-05T10:00:00Z} (the v1alpha2
 *       schema's {@code format: date-time}; v1alpha1 keeps unknown members of a taint, so a
 *       v1alpha1 write or the v1alpha2-fields annotation could otherwise store a value every later
 *       v1alpha2 write of the taints is refused for), and with {@code T} and {@code Z} in upper
 *       case: the schema allows lower case as RFC 3339 does, but Go's {@code metav1.Time} (any Go
 *       client of v1alpha2) cannot read it.
 * </ul>
 *
 * A member of the wrong JSON type is Invalid ("must be a string"); other members are not checked.
 *
 * <p>For ratcheting on UPDATE, {@link #validate(JsonNode, String, IntPredicate)} checks only the
 * taints a caller marks as new, and reports a Duplicate only when at least one of the two taints is
 * new.
 */
public final class TaintValidation {
  private TaintValidation() {}

  /**
   * @param taints the {@code spec.taints} JSON array; null, JSON null or missing means none
   * @param path its field path, e.g. {@code spec.taints}
   * @return all errors, with paths like {@code spec.taints[1].effect}; empty when valid
   */
  public static List<FieldError> validate(JsonNode taints, String path) {
    return validate(taints, path, i -> true);
  }

  /**
   * Validates only some of the taints, for ratcheting: a taint that is not new (already stored as
   * it is) gets none of its own errors reported, but still counts for duplicates.
   *
   * @param taints the {@code spec.taints} JSON array; null, JSON null or missing means none
   * @param path its field path, e.g. {@code spec.taints}
   * @param isNew index in {@code taints} → whether that taint is to be validated
   * @return the errors of the new taints, plus a Duplicate at index {@code i} when an earlier taint
   *     has the same key and effect and taint {@code i} or one of those earlier taints is new;
   *     Invalid at {@code path} when {@code taints} is not an array; empty when valid
   */
  public static List<FieldError> validate(JsonNode taints, String path, IntPredicate isNew) {
    List<FieldError> errors = new ArrayList<>();
    if (!JsonFields.isCheckableList(taints, path, "taints", errors)) {
      return errors;
    }
    // [key, effect] of earlier taints → whether one of them is new
    // keys that compare: a list of colliding keys costs no quadratic search (HashKey)
    Map<dev.ironcore.maintenance.api.json.HashKey.Strings, Boolean> seen = new HashMap<>();
    for (int i = 0; i < taints.size(); i++) {
      String item = path + "[" + i + "]";
      JsonNode taint = taints.get(i);
      boolean fresh = isNew.test(i);
      if (fresh && !JsonFields.isObject(taint, item, "{key, value, effect}", errors)) {
        continue;
      }
      if (fresh) {
        validateFields(taint, item, errors);
      }
      List<String> pair = keyAndEffect(taint);
      if (pair == null) {
        continue;
      }
      var pairKey = new dev.ironcore.maintenance.api.json.HashKey.Strings(pair);
      Boolean earlierNew = seen.get(pairKey);
      if (earlierNew != null && (fresh || earlierNew)) {
        ObjectNode bad =
            JsonNodeFactory.instance
                .objectNode()
                .put("key", pair.get(0))
                .put("effect", pair.get(1));
        errors.add(FieldError.duplicate(item, bad, "taints must be unique by key and effect"));
      }
      seen.put(pairKey, fresh || Boolean.TRUE.equals(earlierNew));
    }
    return errors;
  }

  private static void validateFields(JsonNode taint, String item, List<FieldError> errors) {
    String key = JsonFields.string(taint, "key", item + ".key", errors);
    if ("".equals(key)) {
      errors.add(FieldError.required(item + ".key", "a taint needs a key (a qualified name)"));
    } else if (key != null) {
      LabelSyntax.qualifiedNameErrors(key)
          .forEach(e -> errors.add(FieldError.invalid(item + ".key", key, e)));
    }
    String value = JsonFields.string(taint, "value", item + ".value", errors);
    if (value != null && !LabelSyntax.isLabelValue(value)) {
      String detail = String.join("; ", LabelSyntax.labelValueErrors(value));
      errors.add(FieldError.invalid(item + ".value", value, detail));
    }
    String effect = JsonFields.string(taint, "effect", item + ".effect", errors);
    if ("".equals(effect)) {
      errors.add(FieldError.required(item + ".effect", ""));
    } else if (effect != null && !TaintEffect.SUPPORTED.contains(effect)) {
      errors.add(FieldError.notSupported(item + ".effect", effect, TaintEffect.SUPPORTED));
    }
    validateTimeAdded(taint.get("timeAdded"), item, errors);
  }

  /**
   * Only what v1alpha2 readers require of the member v1alpha1 lacks: {@code timeAdded}, when
   * present and not null, an RFC 3339 date-time ({@code type: string, format: date-time}) with
   * {@code T} and {@code Z} in upper case (Go's {@code metav1.Time}), for the taints marked new.
   * The API server checks a write against the schema of the version it is sent in, and v1alpha1
   * keeps unknown members of a taint, so a v1alpha1 write could store a value no v1alpha2 write
   * can. For objects being deleted, where no other rule applies.
   *
   * @param taints the {@code spec.taints} list in its v1alpha2 form; anything but an array means
   *     nothing to check
   * @param path its field path, e.g. {@code spec.taints}
   * @param isNew index → whether that taint is to be checked
   * @return Invalid at {@code spec.taints[i].timeAdded} for each bad value; else empty
   */
  public static List<FieldError> validateSchemaTypes(
      JsonNode taints, String path, IntPredicate isNew) {
    List<FieldError> errors = new ArrayList<>();
    if (taints == null || !taints.isArray()) {
      return errors;
    }
    for (int i = 0; i < taints.size(); i++) {
      if (isNew.test(i)) {
        validateTimeAdded(taints.get(i).get("timeAdded"), path + "[" + i + "]", errors);
      }
    }
    return errors;
  }

  /**
   * Adds an Invalid error unless {@code time} is absent, null or an RFC 3339 date-time with {@code
   * T} and {@code Z} in upper case.
   */
  private static void validateTimeAdded(JsonNode time, String item, List<FieldError> errors) {
    if (time == null || time.isNull()) {
      return;
    }
    if (!isDateTime(time)) {
      errors.add(
          FieldError.invalid(
              item + ".timeAdded",
              time.isTextual() ? time.asText() : time,
              "must be an RFC 3339 date-time, e.g. 2026-12-05T10:00:00Z"));
    } else if (time.isTextual() && !time.asText().equals(upper(time.asText()))) {
      errors.add(
          FieldError.invalid(
              item + ".timeAdded",
              time.asText(),
              "must write T and Z in upper case, e.g. 2026-12-05T10:00:00Z: Go clients"
                  + " (metav1.Time) cannot read the lower-case form RFC 3339 otherwise allows"));
    }
  }

  private static String upper(String time) {
    return time.toUpperCase(java.util.Locale.ROOT);
  }

  /**
   * The shape kube-apiserver's OpenAPI {@code format: date-time} accepts (kube-openapi's {@code
   * strfmt.IsDateTime}: RFC 3339 section 5.6, seconds and an offset {@code Z} or {@code ±HH:MM}
   * required, {@code T}/{@code Z} in either case); laxer forms that Java reads, e.g. {@code
   * 2026-12-05T10:00Z} or {@code +01}, would be admitted here and then refused by the schema on
   * every later v1alpha2 write.
   */
  private static final java.util.regex.Pattern RFC3339 =
      java.util.regex.Pattern.compile(
          "\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})");

  /**
   * @return whether {@code time} is a JSON string holding an RFC 3339 date-time with an offset (as
   *     {@code metav1.Time} writes it; fractions of a second allowed): the shape the v1alpha2
   *     schema's {@code format: date-time} accepts, with a real date and time and an offset from
   *     {@code -23:59} to {@code +23:59} (read by {@link
   *     dev.ironcore.maintenance.api.compute.TimeAdded#parse}, as the controller reads it)
   */
  public static boolean isDateTime(JsonNode time) {
    if (time == null || !time.isTextual() || !RFC3339.matcher(time.asText()).matches()) {
      return false;
    }
    return dev.ironcore.maintenance.api.compute.TimeAdded.parse(
            time.asText().toUpperCase(java.util.Locale.ROOT))
        != null;
  }

  /**
   * @return {@code [key, effect]} ("" when absent), or null when not an object or either is not a
   *     string
   */
  private static List<String> keyAndEffect(JsonNode taint) {
    if (!taint.isObject()) {
      return null;
    }
    List<FieldError> ignored = new ArrayList<>();
    String key = JsonFields.string(taint, "key", "", ignored);
    String effect = JsonFields.string(taint, "effect", "", ignored);
    return key == null || effect == null ? null : List.of(key, effect);
  }
}

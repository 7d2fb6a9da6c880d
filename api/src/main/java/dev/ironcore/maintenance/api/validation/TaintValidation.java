package dev.ironcore.maintenance.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Validates MachinePool taints (domain reference §4 "Validation (our superset)", with the
 * semantics of Kubernetes' node taint validation; IronCore itself checks none of this). Every
 * error is reported, in list order:
 * <ul>
 *   <li>{@code key}: Required when empty; Invalid unless a qualified name
 *       ({@link LabelSyntax#qualifiedNameErrors}, one error per problem);</li>
 *   <li>{@code value}: Invalid unless a label value (may be empty);</li>
 *   <li>{@code effect}: Required when empty; Unsupported value unless one of
 *       {@link TaintEffect#SUPPORTED};</li>
 *   <li>the item itself: Duplicate when an earlier taint has the same key and effect (badValue
 *       {@code {key, effect}}).</li>
 * </ul>
 * A member of the wrong JSON type is Invalid ("must be a string"); other members (such as
 * v1alpha2's {@code timeAdded}) are not checked.
 */
public final class TaintValidation {
    private TaintValidation() {}

    /**
     * @param taints the {@code spec.taints} JSON array; null, JSON null or missing means none
     * @param path   its field path, e.g. {@code spec.taints}
     * @return all errors, with paths like {@code spec.taints[1].effect}; empty when valid
     */
    public static List<FieldError> validate(JsonNode taints, String path) {
        List<FieldError> errors = new ArrayList<>();
        if (!JsonFields.isCheckableList(taints, path, "taints", errors)) {
            return errors;
        }
        Set<List<String>> seen = new HashSet<>();
        for (int i = 0; i < taints.size(); i++) {
            String item = path + "[" + i + "]";
            JsonNode taint = taints.get(i);
            if (JsonFields.isObject(taint, item, "{key, value, effect}", errors)) {
                validateOne(taint, item, seen, errors);
            }
        }
        return errors;
    }

    /** @param seen the {@code [key, effect]} pairs of earlier taints; this one's is added */
    private static void validateOne(JsonNode taint, String item, Set<List<String>> seen, List<FieldError> errors) {
        String key = JsonFields.string(taint, "key", item + ".key", errors);
        if ("".equals(key)) {
            errors.add(FieldError.required(item + ".key", "a taint needs a key (a qualified name)"));
        } else if (key != null) {
            LabelSyntax.qualifiedNameErrors(key).forEach(e -> errors.add(FieldError.invalid(item + ".key", key, e)));
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
        if (key != null && effect != null && !seen.add(List.of(key, effect))) {
            ObjectNode pair = JsonNodeFactory.instance.objectNode().put("key", key).put("effect", effect);
            errors.add(FieldError.duplicate(item, pair, "taints must be unique by key and effect"));
        }
    }
}

package dev.ironcore.maintenance.devtools.demo;

import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.api.selector.Requirement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Labels that make an object match a label selector, so the demo's CAPI Machine is one the
 * controller manages.
 */
final class SelectedLabels {
  private SelectedLabels() {}

  /**
   * @param selector kubectl {@code -l} syntax; empty gives no labels
   * @return labels satisfying every requirement (absence satisfies {@code !=}, {@code notin},
   *     {@code !key})
   * @throws IllegalArgumentException when the selector is invalid or cannot be satisfied (e.g.
   *     {@code a=x,a=y})
   */
  static Map<String, String> satisfying(String selector) {
    LabelSelector parsed = LabelSelector.parse(selector);
    Map<String, String> labels = new LinkedHashMap<>();
    for (Requirement r : parsed.requirements()) {
      switch (r.operator()) {
        case EQUALS, IN -> labels.putIfAbsent(r.key(), r.values().get(0));
        case EXISTS -> labels.putIfAbsent(r.key(), "demo");
        case GREATER_THAN ->
            labels.putIfAbsent(r.key(), String.valueOf(Long.parseLong(r.values().get(0)) + 1));
        case LESS_THAN ->
            labels.putIfAbsent(r.key(), String.valueOf(Long.parseLong(r.values().get(0)) - 1));
        default -> {}
      }
    }
    if (!parsed.test(labels)) {
      throw new IllegalArgumentException("no labels satisfy the selector \"" + selector + "\"");
    }
    return labels;
  }
}

package dev.ironcore.maintenance.api.selector;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One term of a label selector, with the semantics of Kubernetes' {@code labels.Requirement}.
 *
 * @param key label key
 * @param operator how to compare
 * @param values the values: one for {@code =}, {@code !=}, {@code >}, {@code <}; one or more for
 *     {@code in}/{@code notin} (the empty value for kubectl's {@code in ()}); none for
 *     exists/does-not-exist
 */
public record Requirement(String key, Operator operator, List<String> values) {

  /** The operators kubectl's {@code -l} accepts. */
  public enum Operator {
    /** {@code key=value} or {@code key==value}: the label is present with that value. */
    EQUALS,
    /** {@code key!=value}: the label is absent or has another value. */
    NOT_EQUALS,
    /** {@code key in (a,b)}: the label is present with one of the values. */
    IN,
    /** {@code key notin (a,b)}: the label is absent or has none of the values. */
    NOT_IN,
    /** {@code key}: the label is present. */
    EXISTS,
    /** {@code !key}: the label is absent. */
    DOES_NOT_EXIST,
    /** {@code key>n}: the label is an integer greater than n. */
    GREATER_THAN,
    /** {@code key<n}: the label is an integer less than n. */
    LESS_THAN
  }

  public Requirement {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operator, "operator");
    values = List.copyOf(values);
  }

  /**
   * @param labels an object's labels
   * @return whether they satisfy this requirement
   */
  public boolean matches(Map<String, String> labels) {
    String actual = labels.get(key);
    return switch (operator) {
      case EQUALS, IN -> actual != null && values.contains(actual);
      case NOT_EQUALS, NOT_IN -> actual == null || !values.contains(actual);
      case EXISTS -> actual != null;
      case DOES_NOT_EXIST -> actual == null;
      case GREATER_THAN -> compare(actual) > 0;
      case LESS_THAN -> compare(actual) < 0;
    };
  }

  /**
   * @return sign of (actual - bound), or 0 when the label is absent or not an integer
   */
  private int compare(String actual) {
    if (actual == null) {
      return 0;
    }
    try {
      return Long.compare(Long.parseLong(actual), Long.parseLong(values.get(0)));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  @Override
  public String toString() {
    return switch (operator) {
      case EQUALS -> key + "=" + values.get(0);
      case NOT_EQUALS -> key + "!=" + values.get(0);
      case IN -> key + " in (" + String.join(",", values) + ")";
      case NOT_IN -> key + " notin (" + String.join(",", values) + ")";
      case EXISTS -> key;
      case DOES_NOT_EXIST -> "!" + key;
      case GREATER_THAN -> key + ">" + values.get(0);
      case LESS_THAN -> key + "<" + values.get(0);
    };
  }
}

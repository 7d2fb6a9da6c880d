package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.ironcore.maintenance.api.Extensible;

/**
 * A Machine toleration {@code {key, operator, value, effect}}, all optional (IronCore {@code
 * compute.ironcore.dev}). {@code tolerationSeconds} exists only in our v1alpha2.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"key", "operator", "value", "effect", "tolerationSeconds"})
public class Toleration extends Extensible {
  /** Operator: the taint's value must equal the toleration's (the default when empty). */
  public static final String EQUAL = "Equal";

  /** Operator: any value of the key matches. */
  public static final String EXISTS = "Exists";

  private String key;
  private String operator;
  private String value;
  private String effect;
  private Long tolerationSeconds;

  public Toleration() {}

  public Toleration(String key, String operator, String value, String effect) {
    this.key = key;
    this.operator = operator;
    this.value = value;
    this.effect = effect;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getOperator() {
    return operator;
  }

  public void setOperator(String operator) {
    this.operator = operator;
  }

  public String getValue() {
    return value;
  }

  public void setValue(String value) {
    this.value = value;
  }

  public String getEffect() {
    return effect;
  }

  public void setEffect(String effect) {
    this.effect = effect;
  }

  public Long getTolerationSeconds() {
    return tolerationSeconds;
  }

  public void setTolerationSeconds(Long tolerationSeconds) {
    this.tolerationSeconds = tolerationSeconds;
  }

  /**
   * Whether this toleration matches {@code taint} (IronCore {@code ToleratesTaint}, same as
   * Kubernetes): effect empty or equal; key empty or equal; {@code Exists} matches any value,
   * {@code Equal} or empty operator needs equal values (null and "" are equal); any other operator
   * never matches.
   */
  public boolean tolerates(Taint taint) {
    if (!isEmpty(effect) && !effect.equals(taint.getEffect())) {
      return false;
    }
    if (!isEmpty(key) && !key.equals(taint.getKey())) {
      return false;
    }
    String op = isEmpty(operator) ? EQUAL : operator;
    if (EXISTS.equals(op)) {
      return true;
    }
    if (EQUAL.equals(op)) {
      return nullToEmpty(value).equals(nullToEmpty(taint.getValue()));
    }
    return false;
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}

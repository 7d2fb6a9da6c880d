package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.ironcore.maintenance.api.Extensible;
import java.util.List;
import java.util.Objects;

/**
 * A MachinePool taint {@code {key, value, effect}} (IronCore {@code compute.ironcore.dev}). {@code
 * timeAdded} (RFC 3339 string) exists only in our v1alpha2 and stays null when read from v1alpha1.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"key", "value", "effect", "timeAdded"})
public class Taint extends Extensible {
  private String key;
  private String value;
  private String effect;
  private String timeAdded;

  public Taint() {}

  public Taint(String key, String value, String effect) {
    this.key = key;
    this.value = value;
    this.effect = effect;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
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

  public String getTimeAdded() {
    return timeAdded;
  }

  public void setTimeAdded(String timeAdded) {
    this.timeAdded = timeAdded;
  }

  /** True when both have the same key and effect (how taints are matched for uniqueness). */
  public boolean sameKeyAndEffect(Taint other) {
    return Objects.equals(key, other.key) && Objects.equals(effect, other.effect);
  }

  /**
   * True when both lists hold the same taints in the same order, compared by key, value, effect and
   * timeAdded (unknown fields ignored); null and empty are the same.
   */
  public static boolean sameTaints(List<Taint> a, List<Taint> b) {
    List<Taint> x = a == null ? List.of() : a;
    List<Taint> y = b == null ? List.of() : b;
    if (x.size() != y.size()) {
      return false;
    }
    for (int i = 0; i < x.size(); i++) {
      Taint t = x.get(i);
      Taint u = y.get(i);
      if (t == null || u == null) {
        if (t != u) {
          return false;
        }
      } else if (!(t.sameKeyAndEffect(u)
          && Objects.equals(t.value, u.value)
          && Objects.equals(t.timeAdded, u.timeAdded))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return key + (value == null || value.isEmpty() ? "" : "=" + value) + ":" + effect;
  }
}

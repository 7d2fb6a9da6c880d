package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.ironcore.maintenance.api.Extensible;
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

  @Override
  public String toString() {
    return key + (value == null || value.isEmpty() ? "" : "=" + value) + ":" + effect;
  }
}

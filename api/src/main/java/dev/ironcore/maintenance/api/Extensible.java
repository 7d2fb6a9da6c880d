package dev.ironcore.maintenance.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Base of our resource shapes: keeps every JSON field this product does not model, so that an
 * object read and written back loses nothing (IronCore has many more spec fields than we use).
 */
public abstract class Extensible {
  private final Map<String, Object> additionalProperties = new LinkedHashMap<>();

  /** Fields not modelled by this class, in their JSON form (maps, lists, strings, numbers). */
  @JsonAnyGetter
  public Map<String, Object> getAdditionalProperties() {
    return additionalProperties;
  }

  @JsonAnySetter
  public void setAdditionalProperty(String name, Object value) {
    additionalProperties.put(name, value);
  }

  @JsonIgnore
  public Object getAdditionalProperty(String name) {
    return additionalProperties.get(name);
  }
}

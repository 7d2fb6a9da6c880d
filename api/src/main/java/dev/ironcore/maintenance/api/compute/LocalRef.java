package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;

/** A reference by name, e.g. {@code spec.machinePoolRef} = {@code {name: pool-a}}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LocalRef extends Extensible {
  private String name;

  public LocalRef() {}

  public LocalRef(String name) {
    this.name = name;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }
}

package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;

/** {@code Machine.status}: {@code state}; everything else kept as unknown fields. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MachineStatus extends Extensible {
  private String state;

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }
}

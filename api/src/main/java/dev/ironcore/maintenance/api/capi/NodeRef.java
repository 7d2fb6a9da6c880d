package dev.ironcore.maintenance.api.capi;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;

/**
 * CAPI {@code status.nodeRef}: {@code {name}} in v1beta2; a full ObjectReference in v1beta1 (the
 * extra fields are kept). Either way {@code name} is the node's name, which equals the
 * MachinePool's.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeRef extends Extensible {
  private String name;

  public NodeRef() {}

  public NodeRef(String name) {
    this.name = name;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }
}

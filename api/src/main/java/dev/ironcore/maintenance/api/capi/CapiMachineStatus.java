package dev.ironcore.maintenance.api.capi;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;

/** CAPI Machine status: only {@code nodeRef} is read; everything else is kept. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapiMachineStatus extends Extensible {
  private NodeRef nodeRef;

  public NodeRef getNodeRef() {
    return nodeRef;
  }

  public void setNodeRef(NodeRef nodeRef) {
    this.nodeRef = nodeRef;
  }
}

package dev.ironcore.maintenance.api.capi;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.json.Salvageable;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Cluster API {@code cluster.x-k8s.io/v1beta2} Machine (the storage version from CAPI 1.11 on): the
 * node under a MachinePool; {@code status.nodeRef.name} equals the pool's name.
 */
@Group("cluster.x-k8s.io")
@Version("v1beta2")
@Kind("Machine")
@Plural("machines")
@Singular("machine")
public class CapiMachine extends CustomResource<CapiMachineSpec, CapiMachineStatus>
    implements Namespaced, Salvageable {

  /** {@code status.nodeRef.name}, or null when CAPI has not recorded a node (yet). */
  public String nodeName() {
    CapiMachineStatus status = getStatus();
    if (status == null || status.getNodeRef() == null) {
      return null;
    }
    String name = status.getNodeRef().getName();
    return name == null || name.isEmpty() ? null : name;
  }

  @JsonIgnore private String decodeError;

  @Override
  public String decodeError() {
    return decodeError;
  }

  @Override
  public void salvage(String error, JsonNode tree) {
    this.decodeError = error;
    JsonNode node = tree.at("/status/nodeRef/name");
    if (node.isTextual()) {
      CapiMachineStatus status = new CapiMachineStatus();
      status.setNodeRef(new NodeRef(node.asText()));
      setStatus(status);
    }
  }
}

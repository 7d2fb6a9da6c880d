package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.json.Salvageable;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** IronCore {@code compute.ironcore.dev/v1alpha1} MachinePool (cluster-scoped). */
@Group("compute.ironcore.dev")
@Version("v1alpha1")
@Kind("MachinePool")
@Plural("machinepools")
@Singular("machinepool")
public class MachinePool extends CustomResource<MachinePoolSpec, MachinePoolStatus>
    implements Salvageable {

  @JsonIgnore private String decodeError;

  @Override
  public String decodeError() {
    return decodeError;
  }

  /** Keeps only the metadata: taints and conditions of such a pool are unknown, so never used. */
  @Override
  public void salvage(String error, JsonNode tree) {
    this.decodeError = error;
  }
}

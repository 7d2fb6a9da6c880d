package dev.ironcore.maintenance.api.compute;

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
 * IronCore {@code compute.ironcore.dev/v1alpha1} Machine (namespaced): a virtual machine on a pool.
 */
@Group("compute.ironcore.dev")
@Version("v1alpha1")
@Kind("Machine")
@Plural("machines")
@Singular("machine")
public class Machine extends CustomResource<MachineSpec, MachineStatus>
    implements Namespaced, Salvageable {

  /** The pool this Machine is bound to ({@code spec.machinePoolRef.name}), or null when unbound. */
  public String boundPoolName() {
    MachineSpec spec = getSpec();
    if (spec == null || spec.getMachinePoolRef() == null) {
      return null;
    }
    String name = spec.getMachinePoolRef().getName();
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
    // keep the binding (the pool's index and the drain need it); tolerations stay unknown, so the
    // drain counts this Machine as not tolerating and eviction skips it
    JsonNode pool = tree.at("/spec/machinePoolRef/name");
    if (pool.isTextual()) {
      MachineSpec spec = new MachineSpec();
      spec.setMachinePoolRef(new LocalRef(pool.asText()));
      setSpec(spec);
    }
  }
}

package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code MachinePool.spec}: {@code providerID}, {@code taints[]}; other fields kept as they are.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MachinePoolSpec extends Extensible {
  private String providerID;
  private List<Taint> taints;

  public String getProviderID() {
    return providerID;
  }

  public void setProviderID(String providerID) {
    this.providerID = providerID;
  }

  public List<Taint> getTaints() {
    return taints;
  }

  public void setTaints(List<Taint> taints) {
    this.taints = taints;
  }

  /** The taints, never null (an empty list when the field is absent). */
  public List<Taint> taintsOrEmpty() {
    return taints == null ? new ArrayList<>() : taints;
  }
}

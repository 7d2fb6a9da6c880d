package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;
import java.util.List;
import java.util.Map;

/**
 * {@code Machine.spec}: the fields this product reads ({@code machineClassRef}, {@code
 * machinePoolRef}, {@code machinePoolSelector}, {@code tolerations}, {@code power}); every other
 * IronCore field is kept.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MachineSpec extends Extensible {
  private LocalRef machineClassRef;
  private LocalRef machinePoolRef;
  private Map<String, String> machinePoolSelector;
  private List<Toleration> tolerations;
  private String power;

  public LocalRef getMachineClassRef() {
    return machineClassRef;
  }

  public void setMachineClassRef(LocalRef machineClassRef) {
    this.machineClassRef = machineClassRef;
  }

  public LocalRef getMachinePoolRef() {
    return machinePoolRef;
  }

  public void setMachinePoolRef(LocalRef machinePoolRef) {
    this.machinePoolRef = machinePoolRef;
  }

  public Map<String, String> getMachinePoolSelector() {
    return machinePoolSelector;
  }

  public void setMachinePoolSelector(Map<String, String> s) {
    this.machinePoolSelector = s;
  }

  public List<Toleration> getTolerations() {
    return tolerations;
  }

  public void setTolerations(List<Toleration> tolerations) {
    this.tolerations = tolerations;
  }

  public String getPower() {
    return power;
  }

  public void setPower(String power) {
    this.power = power;
  }
}

package dev.ironcore.maintenance.api.compute;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;
import java.util.List;

/**
 * {@code MachinePool.status}: {@code state} and {@code conditions[]}; {@code
 * availableMachineClasses}, {@code addresses}, {@code capacity}, {@code allocatable} are kept
 * untouched as unknown fields.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MachinePoolStatus extends Extensible {
  private String state;
  private List<Condition> conditions;

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }
}

package dev.ironcore.maintenance.api.compute;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class RoundTripTest {
  private final ObjectMapper mapper = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  @Test
  void machineKeepsFieldsWeDoNotModel() throws Exception {
    String json =
        """
            {"apiVersion":"compute.ironcore.dev/v1alpha1","kind":"Machine",
             "metadata":{"name":"vm-1","namespace":"ns"},
             "spec":{"machineClassRef":{"name":"x3"},"machinePoolRef":{"name":"pool-a"},
                     "image":"ghcr.io/os:1","networkInterfaces":[{"name":"eth0"}],
                     "tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute"}],"power":"On"},
             "status":{"state":"Running","networkInterfaces":[{"ips":["10.0.0.1"]}]}}
            """;
    Machine machine = mapper.readValue(json, Machine.class);
    assertThat(machine.boundPoolName()).isEqualTo("pool-a");
    assertThat(machine.getSpec().getTolerations()).hasSize(1);
    JsonNode back = mapper.readTree(mapper.writeValueAsString(machine));
    assertThat(back.get("spec")).isEqualTo(mapper.readTree(json).get("spec"));
    assertThat(back.get("status")).isEqualTo(mapper.readTree(json).get("status"));
  }

  @Test
  void poolKeepsStatusFieldsWeDoNotModel() throws Exception {
    String json =
        """
            {"apiVersion":"compute.ironcore.dev/v1alpha1","kind":"MachinePool","metadata":{"name":"pool-a"},
             "spec":{"providerID":"ironcore://pool-a","taints":[{"key":"a","effect":"NoSchedule"}]},
             "status":{"state":"Ready","capacity":{"cpu":"4"},"addresses":[{"type":"InternalIP","address":"10.1.1.1"}],
                       "conditions":[{"type":"Ready","status":"True","observedGeneration":3,"lastUpdateTime":"2026-11-29T08:00:00Z"}]}}
            """;
    MachinePool pool = mapper.readValue(json, MachinePool.class);
    assertThat(pool.getSpec().taintsOrEmpty()).hasSize(1);
    JsonNode back = mapper.readTree(mapper.writeValueAsString(pool));
    assertThat(back.get("spec")).isEqualTo(mapper.readTree(json).get("spec"));
    assertThat(back.get("status")).isEqualTo(mapper.readTree(json).get("status"));
  }
}

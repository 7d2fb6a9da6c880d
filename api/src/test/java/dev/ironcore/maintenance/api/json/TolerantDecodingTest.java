package dev.ironcore.maintenance.api.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class TolerantDecodingTest {
  private final KubernetesSerialization serialization = JsonMappers.kubernetesSerialization();

  private static String machine(String name, String tolerations) {
    return ("{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine',"
            + "'metadata':{'name':'%s','namespace':'ns','resourceVersion':'7','finalizers':['f']},"
            + "'spec':{'machinePoolRef':{'name':'pool-a'},'tolerations':%s}}")
        .formatted(name, tolerations)
        .replace('\'', '"');
  }

  @Test
  void aMachineThatDoesNotFitItsShapeKeepsMetadataAndBindingAndIsMarked() {
    long before = DecodeErrors.count("Machine.compute.ironcore.dev");
    Machine m = serialization.unmarshal(machine("bad", "{'key':'k'}"), Machine.class);
    assertThat(m.decodeError()).isEqualTo("spec.tolerations: expected a list, got an object");
    assertThat(m.getMetadata().getName()).isEqualTo("bad");
    assertThat(m.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(m.getMetadata().getFinalizers()).containsExactly("f");
    assertThat(m.boundPoolName()).isEqualTo("pool-a");
    assertThat(m.getSpec().getTolerations()).isNull();
    assertThat(DecodeErrors.count("Machine.compute.ironcore.dev")).isEqualTo(before + 1);
  }

  @Test
  void oneBadItemDoesNotFailTheOthers() {
    String list = "[" + machine("good", "[{'key':'k'}]") + "," + machine("bad", "'all'") + "]";
    List<Machine> machines = serialization.unmarshal(list, new TypeReference<List<Machine>>() {});
    assertThat(machines).extracting(Machine::decodeError).first().isNull();
    assertThat(machines.get(0).getSpec().getTolerations()).hasSize(1);
    assertThat(machines.get(1).decodeError()).isNotNull();
  }

  @Test
  void aWellFormedObjectIsNotMarked() {
    assertThat(serialization.unmarshal(machine("ok", "[]"), Machine.class).decodeError()).isNull();
  }

  @Test
  void capiMachineKeepsItsNodeAndPoolItsName() {
    CapiMachine c =
        serialization.unmarshal(
            "{\"apiVersion\":\"cluster.x-k8s.io/v1beta2\",\"kind\":\"Machine\",\"metadata\":{\"name\":\"n\"},"
                + "\"spec\":[],\"status\":{\"nodeRef\":{\"name\":\"pool-a\"}}}",
            CapiMachine.class);
    assertThat(c.decodeError()).isNotNull();
    assertThat(c.nodeName()).isEqualTo("pool-a");
    MachinePool p =
        serialization.unmarshal(
            "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"MachinePool\","
                + "\"metadata\":{\"name\":\"p\"},\"spec\":{\"taints\":\"x\"}}",
            MachinePool.class);
    assertThat(p.decodeError()).isNotNull();
    assertThat(p.getSpec()).isNull();
  }

  @Test
  void theErrorNamesTheFieldAndWhatIsStoredThere() {
    Machine seconds =
        serialization.unmarshal(
            machine("bad", "[{'key':'k','effect':'NoExecute','tolerationSeconds':'30s'}]"),
            Machine.class);
    assertThat(seconds.decodeError())
        .isEqualTo("spec.tolerations[0].tolerationSeconds: expected an integer, got \"30s\"");
    Machine scalar = serialization.unmarshal(machine("bad", "'all'"), Machine.class);
    assertThat(scalar.decodeError()).isEqualTo("spec.tolerations: expected a list, got a string");
    MachinePool p =
        serialization.unmarshal(
            "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"MachinePool\","
                + "\"metadata\":{\"name\":\"p\"},\"spec\":{\"taints\":[{\"key\":[1]}]}}",
            MachinePool.class);
    assertThat(p.decodeError()).isEqualTo("spec.taints[0].key: expected a string, got a list");
  }
}

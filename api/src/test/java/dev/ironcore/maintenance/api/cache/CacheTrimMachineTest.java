package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.MachineStatus;
import dev.ironcore.maintenance.api.compute.Toleration;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheTrimMachineTest {
  @Test
  void trimKeepsWhatTheWarningReadsAndDropsTheRest() {
    Machine m = new Machine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName("vm-1")
            .withNamespace("ns")
            .withDeletionTimestamp("2026-11-29T08:00:00Z")
            .withLabels(Map.of("l", "v"))
            .withAnnotations(Map.of("big", "x".repeat(10_000)))
            .withManagedFields(new ManagedFieldsEntry())
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachinePoolRef(new LocalRef("pool-a"));
    spec.setMachineClassRef(new LocalRef("x3-small"));
    spec.setPower("On");
    spec.setTolerations(List.of(new Toleration("k", "Exists", null, "NoExecute")));
    m.setSpec(spec);
    m.setStatus(new MachineStatus());

    Machine trimmed = CacheTrim.machine(m);

    assertThat(trimmed.getMetadata().getName()).isEqualTo("vm-1");
    assertThat(trimmed.getMetadata().getDeletionTimestamp()).isEqualTo("2026-11-29T08:00:00Z");
    assertThat(trimmed.getMetadata().getLabels()).containsEntry("l", "v");
    assertThat(trimmed.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(trimmed.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(trimmed.boundPoolName()).isEqualTo("pool-a");
    assertThat(trimmed.getSpec().getTolerations()).hasSize(1);
    assertThat(trimmed.getSpec().getMachineClassRef()).isNull();
    assertThat(trimmed.getSpec().getPower()).isNull();
    assertThat(trimmed.getStatus()).isNull();
  }
}

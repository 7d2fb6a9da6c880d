package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.MachinePoolStatus;
import dev.ironcore.maintenance.api.compute.Taint;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolChangeTest {
  private static MachinePool pool(String resourceVersion, String readyStatus, Taint... taints) {
    MachinePool p = new MachinePool();
    p.setMetadata(
        new ObjectMetaBuilder().withName("pool-1").withResourceVersion(resourceVersion).build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setTaints(List.of(taints));
    p.setSpec(spec);
    MachinePoolStatus status = new MachinePoolStatus();
    Condition ready = new Condition();
    ready.setType("Ready");
    ready.setStatus(readyStatus);
    status.setConditions(List.of(ready));
    p.setStatus(status);
    return p;
  }

  @Test
  void aStatusOnlyUpdateDoesNotConcernTheBoundMachines() {
    Taint t = new Taint("maintenance.ironcore.dev", null, "NoSchedule");
    assertThat(PoolChange.concernsBoundMachines(pool("1", "True", t), pool("2", "Unknown", t)))
        .isFalse();
    assertThat(PoolChange.concernsBoundMachines(pool("1", "True"), pool("2", "Unknown")))
        .as("no taints before or after")
        .isFalse();
  }

  @Test
  void anAddOrDeleteOrAnyTaintChangeDoes() {
    Taint noSchedule = new Taint("maintenance.ironcore.dev", null, "NoSchedule");
    Taint noExecute = new Taint("maintenance.ironcore.dev", null, "NoExecute");
    assertThat(PoolChange.concernsBoundMachines(null, pool("1", "True"))).isTrue();
    assertThat(PoolChange.concernsBoundMachines(pool("1", "True"), pool("2", "True", noSchedule)))
        .isTrue();
    assertThat(
            PoolChange.concernsBoundMachines(
                pool("1", "True", noSchedule), pool("2", "True", noExecute)))
        .isTrue();
    assertThat(PoolChange.concernsBoundMachines(pool("1", "True", noExecute), pool("2", "True")))
        .isTrue();
  }
}

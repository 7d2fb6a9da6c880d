package dev.ironcore.maintenance.devtools.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CAPI stand-in finishes a deleting CAPI Machine as Cluster API does: only once no pre-drain
 * hook and no pre-terminate hook is left (fresh eyes, session 47: it removed CAPI's finalizer while
 * another team's pre-terminate hook was still on the Machine).
 */
class CapiStandInTest {

  private static CapiMachine deleting(Map<String, String> annotations) {
    CapiMachine m = new CapiMachine();
    ObjectMeta meta = new ObjectMeta();
    meta.setNamespace("ns");
    meta.setName("node-1");
    meta.setDeletionTimestamp("2026-12-07T10:00:00Z");
    meta.setFinalizers(List.of(Names.CAPI_MACHINE_FINALIZER));
    meta.setAnnotations(new HashMap<>(annotations));
    m.setMetadata(meta);
    return m;
  }

  @Test
  void aDeletingMachineIsFinishedOnlyWithoutPreDrainAndPreTerminateHooks() {
    assertThat(CapiStandIn.readyToFinish(deleting(Map.of()))).isTrue();
    assertThat(
            CapiStandIn.readyToFinish(
                deleting(Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE))))
        .as("our pre-drain hook holds the drain")
        .isFalse();
    CapiMachine held =
        deleting(Map.of(Names.PRE_TERMINATE_HOOK_PREFIX + "storage-team", "storage-team"));
    assertThat(CapiStandIn.readyToFinish(held)).as("a pre-terminate hook holds it").isFalse();
    assertThat(CapiStandIn.preTerminateHooks(held))
        .containsExactly(Names.PRE_TERMINATE_HOOK_PREFIX + "storage-team");
  }

  @Test
  void aMachineNotDeletingOrWithoutCapisFinalizerIsNotFinished() {
    CapiMachine live = deleting(Map.of());
    live.getMetadata().setDeletionTimestamp(null);
    assertThat(CapiStandIn.readyToFinish(live)).isFalse();
    CapiMachine done = deleting(Map.of());
    done.getMetadata().setFinalizers(List.of());
    assertThat(CapiStandIn.readyToFinish(done)).isFalse();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.controller.runtime.ObjectChanged;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The drain's first step adds our finalizer and pre-drain hook to a CAPI Machine that is not being
 * deleted. A deletion that lands between the controller's read and its PATCH (CAPI or a user
 * deleting the Machine at that moment) used to reach the API server as an unguarded addition, which
 * kube-apiserver refuses with a 422 naming {@code metadata.finalizers} ("no new finalizers can be
 * added if the object is being deleted"): a {@code DrainWriteFailed} Warning for a race the next
 * pass recovers from. The addition now tests the resourceVersion it was decided on, so the same
 * race is a stale read. The deletion is made inside the guard's predicate, i.e. exactly between the
 * read and the write, against the real API server.
 */
class FinalizerAddRaceE2ETest {
  private final ControllerWorld world = new ControllerWorld();

  /** A CAPI Machine with CAPI's finalizer (so a DELETE only marks it) and a nodeRef. */
  private void capiMachine(String name) {
    world.createCapiMachine(name, "pool-" + world.suffix, Map.of());
  }

  private boolean deleteNow(CapiMachine live) {
    world.deleteCapiMachine(live.getMetadata().getName());
    return live.getMetadata().getDeletionTimestamp() == null; // as read: not deleting
  }

  @Test
  void aDeletionBetweenReadAndFinalizerPatchIsAStaleReadNotARefusal() {
    capiMachine("race-guarded");
    var resource =
        world.client.resources(CapiMachine.class).inNamespace(world.ns).withName("race-guarded");

    assertThatThrownBy(
            () ->
                world.writer.patchMetadataWhileUnchanged(
                    resource, this::deleteNow, e -> e.ensureFinalizer(Names.CLEANUP_FINALIZER)))
        .isInstanceOf(ObjectChanged.class);

    CapiMachine after = world.capiMachine("race-guarded");
    assertThat(after.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(after.getMetadata().getFinalizers()).doesNotContain(Names.CLEANUP_FINALIZER);
  }

  @Test
  void withoutTheGuardTheApiServerRefusesTheFinalizerWithAFieldError() {
    capiMachine("race-unguarded");
    var resource =
        world.client.resources(CapiMachine.class).inNamespace(world.ns).withName("race-unguarded");

    // what the drain's step did before: the refusal the guard turns into a stale read
    assertThatThrownBy(
            () ->
                world.writer.patchMetadata(
                    resource, this::deleteNow, e -> e.ensureFinalizer(Names.CLEANUP_FINALIZER)))
        .isInstanceOf(KubernetesClientException.class)
        .isNotInstanceOf(ObjectChanged.class)
        .hasMessageContaining("no new finalizers can be added if the object is being deleted");
  }
}

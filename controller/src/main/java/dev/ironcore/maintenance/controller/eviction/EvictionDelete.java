package dev.ironcore.maintenance.controller.eviction;

import dev.ironcore.maintenance.api.compute.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The eviction's one write: DELETE of a Machine with the precondition that it is still the version
 * the decision was made on. The cache can lag behind the API server (a watch reconnecting after an
 * API server restart or a 410 Gone relist), and a plain DELETE of a Machine that is already being
 * deleted succeeds again, which counted and announced the same eviction twice.
 */
public final class EvictionDelete {
  private EvictionDelete() {}

  /** What the DELETE did. */
  public enum Outcome {
    /** This call started the Machine's deletion. */
    DELETED,
    /** No such Machine (any more). */
    GONE,
    /**
     * The Machine has another resourceVersion than the one decided on (409 Conflict on the
     * precondition): nothing was written; decide again on a fresh read.
     */
    CHANGED
  }

  /**
   * DELETEs Machine {@code namespace/name} with {@code preconditions.resourceVersion}.
   *
   * @param type the version to DELETE in: the one the cache reads ({@code MachineV1alpha2} where
   *     served, so that the DELETE needs no conversion webhook)
   * @param resourceVersion the version the eviction was decided on (from the cache)
   * @throws KubernetesClientException any other failure of the call
   */
  public static Outcome ifUnchanged(
      KubernetesClient client,
      Class<? extends Machine> type,
      String namespace,
      String name,
      String resourceVersion) {
    try {
      var deleted =
          client
              .resources(type)
              .inNamespace(namespace)
              .withName(name)
              .lockResourceVersion(resourceVersion)
              .delete();
      return deleted.isEmpty() ? Outcome.GONE : Outcome.DELETED;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return Outcome.CHANGED;
      }
      throw e;
    }
  }
}

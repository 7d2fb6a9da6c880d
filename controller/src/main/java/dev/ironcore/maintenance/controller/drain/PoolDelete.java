package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.KubeWriter;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;

/**
 * The drain's last write: DELETE of the drained pool, and of that object only. The decision is made
 * on the cache, which can lag: a pool deleted by hand and re-registered by its machinepoollet in
 * the meantime is a new, never drained object under the same name (code review, session 50: an
 * unconditional DELETE by name would have deleted it). So the pool is read from the API server
 * first; its uid must be the one decided on, and the DELETE carries the read's resourceVersion as
 * precondition (the API server answers 409 Conflict if it changed in between; fabric8 offers no uid
 * precondition): a status write in between costs one more pass.
 */
public final class PoolDelete {
  private PoolDelete() {}

  /**
   * @param pool the pool's name
   * @param uid the uid of the pool the deletion was decided on (null: whatever pool has the name)
   * @param beforeDelete run right before the DELETE, once the pool is known to be the one decided
   *     on (records the {@code PoolDeleted} event)
   * @return true when this call deleted it; false when it was already gone
   * @throws IllegalStateException when the pool is another object than decided on; {@link
   *     dev.ironcore.maintenance.controller.runtime.ObjectChanged} when it changed between the read
   *     and the DELETE (either way the queue decides again on a fresh read)
   * @throws KubernetesClientException any other failure of the calls
   */
  public static boolean ifSame(KubeWriter writer, String pool, String uid, Runnable beforeDelete) {
    MachinePool live = writer.livePool(pool);
    if (live == null) {
      return false;
    }
    String liveUid = live.getMetadata().getUid();
    if (uid != null && !Objects.equals(uid, liveUid)) {
      throw new IllegalStateException(
          "MachinePool "
              + pool
              + " is another object (uid "
              + liveUid
              + ") than the one drained (uid "
              + uid
              + "): re-created since; not deleted, deciding again on a fresh read");
    }
    beforeDelete.run();
    try {
      return !writer
          .pool(pool)
          .lockResourceVersion(live.getMetadata().getResourceVersion())
          .delete()
          .isEmpty();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        // written since the GET (a status update): decided again, logged as a stale read
        throw new dev.ironcore.maintenance.controller.runtime.ObjectChanged(409, e);
      }
      throw e;
    }
  }
}

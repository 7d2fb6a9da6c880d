package dev.ironcore.maintenance.devtools.sim;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.PatchTarget;
import dev.ironcore.maintenance.controller.KubeWriter;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LOCAL USE ONLY (off by default; {@code --simulate-poollet}). Stands in for the machinepoollet on
 * the node: when an IronCore Machine is being deleted and holds the poollet finalizer {@code
 * machinepoollet.ironcore.dev/machine}, "shuts the VM down" for {@code shutdownDelay} and then
 * removes that finalizer (only that one), so the API server can delete the Machine. As a real
 * poollet serves only its own pool's Machines, a Machine bound to no MachinePool that exists (its
 * pool deleted, or never created) is left alone: the controller's orphan release ({@code
 * --orphaned-machine-grace}) is what frees it (fresh eyes, session 42: the simulator released every
 * deleting Machine, so that release could not be seen locally).
 */
public final class PoolletSimulator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PoolletSimulator.class);

  private final KubeWriter writer;
  private final Duration shutdownDelay;
  private final ScheduledExecutorService timer =
      Executors.newScheduledThreadPool(
          2,
          r -> {
            Thread t = new Thread(r, "poollet-simulator");
            t.setDaemon(true);
            return t;
          });
  private final Set<String> scheduled = ConcurrentHashMap.newKeySet();
  private final Set<String> waitingForPool = ConcurrentHashMap.newKeySet();

  /** How often a Machine whose pool does not exist is looked at again. */
  static final Duration POOL_RECHECK = Duration.ofSeconds(2);

  private SharedIndexInformer<Machine> informer;

  public PoolletSimulator(KubeWriter writer, Duration shutdownDelay) {
    this.writer = writer;
    this.shutdownDelay = shutdownDelay;
  }

  public void start() {
    informer =
        writer
            .ironcore()
            .resources(Machine.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Machine m) {
                    consider(m);
                  }

                  @Override
                  public void onUpdate(Machine old, Machine m) {
                    consider(m);
                  }

                  @Override
                  public void onDelete(Machine m, boolean finalStateUnknown) {
                    // released or not, it is gone: forget it (a late update event of a released
                    // Machine must not release it again, which only earns a 404)
                    scheduled.remove(m.getMetadata().getUid());
                    waitingForPool.remove(m.getMetadata().getUid());
                  }
                },
                0);
  }

  /** Schedules the release of a deleted Machine that still carries the poollet finalizer, once. */
  private void consider(Machine m) {
    var meta = m.getMetadata();
    if (meta.getDeletionTimestamp() == null
        || meta.getFinalizers() == null
        || !meta.getFinalizers().contains(Names.POOLLET_FINALIZER)
        || !scheduled.add(meta.getUid())) {
      return;
    }
    LOG.info(
        "poollet simulator: shutting down VM of machine {}/{} ({} ms)",
        meta.getNamespace(),
        meta.getName(),
        shutdownDelay.toMillis());
    timer.schedule(() -> release(m), shutdownDelay.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Removes the poollet finalizer with one JSON Patch built on the watched object {@code m}
   * (guarded by its uid and the finalizer's index, so no GET precedes it, as a real poollet
   * patching from its cache); when the API server refuses it (409/422: the finalizers moved), falls
   * back to a patch against a fresh read. Retries every 500 ms on other errors.
   */
  private void release(Machine m) {
    var meta = m.getMetadata();
    try {
      if (!scheduled.contains(meta.getUid())) {
        return; // gone meanwhile (released by the controller's orphan release, or deleted)
      }
      String pool = m.boundPoolName();
      if (pool == null
          || writer.ironcore().resources(MachinePool.class).withName(pool).get() == null) {
        if (waitingForPool.add(meta.getUid())) {
          LOG.info(
              "poollet simulator: machine {}/{} is bound to no MachinePool that exists ({}): no"
                  + " poollet releases it (the controller does, after --orphaned-machine-grace)",
              meta.getNamespace(),
              meta.getName(),
              pool == null ? "unbound" : pool);
        }
        // as the poollet of a pool created again would find it: look again (fresh eyes: a pool
        // created again after the first look left the Machine deleting for good)
        timer.schedule(() -> release(m), POOL_RECHECK.toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      if (!releaseFromWatched(m)) {
        releaseFromLive(m);
      }
      LOG.info(
          "poollet simulator: VM of machine {}/{} is off, released {}",
          meta.getNamespace(),
          meta.getName(),
          Names.POOLLET_FINALIZER);
    } catch (RuntimeException e) {
      LOG.warn(
          "poollet simulator: could not release {}/{}, retrying: {}",
          meta.getNamespace(),
          meta.getName(),
          e.toString());
      timer.schedule(() -> release(m), 500, TimeUnit.MILLISECONDS);
    }
  }

  /** True when released (or gone); false when the watched object was stale (409/422). */
  private boolean releaseFromWatched(Machine m) {
    var meta = m.getMetadata();
    int i = meta.getFinalizers().indexOf(Names.POOLLET_FINALIZER);
    JsonPatch patch =
        JsonPatch.builder()
            .test("/metadata/uid", meta.getUid())
            .test("/metadata/finalizers/" + i, Names.POOLLET_FINALIZER)
            .remove("/metadata/finalizers/" + i)
            .build();
    try {
      PatchTarget.of(writer.ironcore(), Machine.class, meta.getNamespace(), meta.getName())
          .patch(PatchContext.of(PatchType.JSON), patch.toJson().toString());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return true; // gone: nothing left to release
      }
      if (e.getCode() == 409 || e.getCode() == 422) {
        return false;
      }
      throw e;
    }
  }

  private void releaseFromLive(Machine m) {
    var meta = m.getMetadata();
    writer.patchMetadata(
        writer
            .ironcore()
            .resources(Machine.class)
            .inNamespace(meta.getNamespace())
            .withName(meta.getName()),
        live -> meta.getUid().equals(live.getMetadata().getUid()),
        e -> e.removeFinalizer(Names.POOLLET_FINALIZER));
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    timer.shutdownNow();
  }
}

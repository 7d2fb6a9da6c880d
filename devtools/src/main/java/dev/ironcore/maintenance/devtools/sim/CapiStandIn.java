package dev.ironcore.maintenance.devtools.sim;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.controller.runtime.Handlers;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LOCAL USE ONLY (off by default; {@code --simulate-capi}). Stands in for Cluster API's Machine
 * controller at deletion: once a deleting CAPI Machine carries no pre-drain hook annotation ({@code
 * pre-drain.delete.hook.machine.cluster.x-k8s.io/*}), it "drains the node"; once it carries no
 * pre-terminate hook annotation either ({@code
 * pre-terminate.delete.hook.machine.cluster.x-k8s.io/*}, which Cluster API waits for after the
 * drain), it "deletes the node" and removes CAPI's own finalizer {@code machine.cluster.x-k8s.io}
 * (only that one), as Cluster API does.
 */
public final class CapiStandIn implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CapiStandIn.class);

  private final KubeWriter writer;
  private final ScheduledExecutorService retry =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "capi-stand-in");
            t.setDaemon(true);
            return t;
          });
  private SharedIndexInformer<CapiMachine> informer;

  /** Deleting CAPI Machines (namespace/name) whose wait for pre-terminate hooks was logged. */
  private final java.util.Set<String> announced =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  public CapiStandIn(KubeWriter writer) {
    this.writer = writer;
  }

  /**
   * True when {@code m} is deleting, holds CAPI's finalizer and no pre-drain or pre-terminate hook
   * remains.
   */
  static boolean readyToFinish(CapiMachine m) {
    return drained(m) && preTerminateHooks(m).isEmpty();
  }

  /** True when {@code m} is deleting, holds CAPI's finalizer and no pre-drain hook remains. */
  private static boolean drained(CapiMachine m) {
    var meta = m.getMetadata();
    return meta.getDeletionTimestamp() != null
        && meta.getFinalizers() != null
        && meta.getFinalizers().contains(Names.CAPI_MACHINE_FINALIZER)
        && annotations(m).keySet().stream()
            .noneMatch(k -> k.startsWith(Names.PRE_DRAIN_HOOK_PREFIX));
  }

  /** The pre-terminate hook annotations on {@code m}, sorted. */
  static java.util.List<String> preTerminateHooks(CapiMachine m) {
    return annotations(m).keySet().stream()
        .filter(k -> k.startsWith(Names.PRE_TERMINATE_HOOK_PREFIX))
        .sorted()
        .toList();
  }

  private static Map<String, String> annotations(CapiMachine m) {
    Map<String, String> a = m.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  public void start() {
    informer =
        writer
            .capi()
            .resources(CapiMachine.class)
            .inAnyNamespace()
            .inform(Handlers.onAnyChange((old, m) -> retry.execute(() -> finish(m))), 0);
  }

  private void finish(CapiMachine m) {
    var meta = m.getMetadata();
    String key = meta.getNamespace() + "/" + meta.getName();
    if (drained(m) && !preTerminateHooks(m).isEmpty()) {
      if (announced.add(key)) {
        LOG.info(
            "CAPI stand-in: node of {} drained; waiting for pre-terminate hooks {} before deleting"
                + " it",
            key,
            preTerminateHooks(m));
      }
      return;
    }
    if (!readyToFinish(m)) {
      return;
    }
    try {
      boolean sent =
          writer.patchMetadata(
              writer
                  .capi()
                  .resources(CapiMachine.class)
                  .inNamespace(meta.getNamespace())
                  .withName(meta.getName()),
              CapiStandIn::readyToFinish,
              e -> e.removeFinalizer(Names.CAPI_MACHINE_FINALIZER));
      if (sent) {
        announced.remove(key);
        LOG.info(
            "CAPI stand-in: node of {}/{} drained and deleted, removed {}",
            meta.getNamespace(),
            meta.getName(),
            Names.CAPI_MACHINE_FINALIZER);
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "CAPI stand-in: could not finish {}/{}, retrying: {}",
          meta.getNamespace(),
          meta.getName(),
          e.toString());
      retry.schedule(() -> finish(m), 500, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    retry.shutdownNow();
  }
}

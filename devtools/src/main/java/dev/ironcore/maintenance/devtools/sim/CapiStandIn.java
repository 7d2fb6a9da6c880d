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
 * pre-drain.delete.hook.machine.cluster.x-k8s.io/*}), it "drains and deletes the node" and removes
 * CAPI's own finalizer {@code machine.cluster.x-k8s.io} (only that one).
 */
public final class CapiStandIn implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CapiStandIn.class);

  /** Prefix of every CAPI pre-drain hook annotation key. */
  public static final String PRE_DRAIN_HOOK_PREFIX =
      "pre-drain.delete.hook.machine.cluster.x-k8s.io";

  private final KubeWriter writer;
  private final ScheduledExecutorService retry =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "capi-stand-in");
            t.setDaemon(true);
            return t;
          });
  private SharedIndexInformer<CapiMachine> informer;

  public CapiStandIn(KubeWriter writer) {
    this.writer = writer;
  }

  /** True when {@code m} is deleting, holds CAPI's finalizer and no pre-drain hook remains. */
  static boolean readyToFinish(CapiMachine m) {
    var meta = m.getMetadata();
    Map<String, String> annotations =
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
    return meta.getDeletionTimestamp() != null
        && meta.getFinalizers() != null
        && meta.getFinalizers().contains(Names.CAPI_MACHINE_FINALIZER)
        && annotations.keySet().stream().noneMatch(k -> k.startsWith(PRE_DRAIN_HOOK_PREFIX));
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
    if (!readyToFinish(m)) {
      return;
    }
    var meta = m.getMetadata();
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

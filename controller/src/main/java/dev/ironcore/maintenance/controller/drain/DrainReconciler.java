package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.runtime.Keys;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drain and pool-deletion loop for one CAPI Machine (domain reference §5): takes the single step
 * {@link DrainDecision} picks from the cache, performs it with a fresh read, and returns. Before
 * releasing the pre-drain hook it confirms against the API server (not the cache) that no bound
 * Machine still blocks (or, for "pool missing", that the pool really does not exist). Key: the CAPI
 * Machine's {@code namespace/name}.
 */
public final class DrainReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(DrainReconciler.class);

  /** How often a held drain is re-checked even without events. */
  static final Duration HOLD_RECHECK = Duration.ofSeconds(10);

  private final KubeWriter writer;
  private final ClusterCache cache;
  private final ControllerMetrics metrics;
  private final Predicate<Map<String, String>> selector;

  /**
   * The blocking Machines last logged per held drain, so a hold is logged when it changes, not
   * every pass.
   */
  private final Map<String, List<String>> lastHold = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param selector {@code --capi-machine-selector}: which CAPI Machines (by their labels) to
   *     manage
   */
  public DrainReconciler(
      KubeWriter writer,
      ClusterCache cache,
      ControllerMetrics metrics,
      Predicate<Map<String, String>> selector) {
    this.writer = writer;
    this.cache = cache;
    this.metrics = metrics;
    this.selector = selector;
  }

  @Override
  public Result reconcile(String key) {
    CapiMachine cached = cache.capiMachine(key);
    if (cached == null) {
      lastHold.remove(key);
      return Result.done();
    }
    String node = cached.nodeName();
    MachinePool pool = cache.pool(node);
    List<Machine> bound = pool == null ? List.of() : cache.machinesBoundTo(node);
    Map<String, String> labels = cached.getMetadata().getLabels();
    boolean selected = selector.test(labels == null ? Map.of() : labels);
    DrainStep step = DrainDecision.next(new DrainInput(cached, selected, pool, bound));
    if (!(step instanceof DrainStep.Hold)) {
      lastHold.remove(key);
    }
    if (!(step instanceof DrainStep.Nothing)) {
      metrics.drainStep(step.getClass().getSimpleName());
    }
    Resource<CapiMachine> capi =
        writer
            .capi()
            .resources(CapiMachine.class)
            .inNamespace(Keys.namespace(key))
            .withName(Keys.name(key));
    if (step instanceof DrainStep.EnsureFinalizerAndHook) {
      boolean sent =
          writer.patchMetadata(
              capi,
              live -> live.getMetadata().getDeletionTimestamp() == null,
              e ->
                  e.ensureFinalizer(Names.CLEANUP_FINALIZER)
                      .ensureAnnotation(
                          Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE));
      log(sent, key, "added finalizer and pre-drain hook");
    } else if (step instanceof DrainStep.Release s) {
      boolean sent =
          writer.patchMetadata(
              capi,
              e ->
                  e.removeAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION)
                      .removeFinalizer(Names.CLEANUP_FINALIZER));
      log(sent, key, s.reason() + ": released pre-drain hook and finalizer");
    } else if (step instanceof DrainStep.AddTaints s) {
      var added = writer.addTaints(s.pool(), DrainDecision.MAINTENANCE_TAINTS);
      if (!added.isEmpty()) {
        LOG.info("drain {}: added taints {} to pool {}", key, added, s.pool());
      }
    } else if (step instanceof DrainStep.Hold s) {
      if (s.blockingMachines().equals(lastHold.put(key, s.blockingMachines()))) {
        return Result.requeueAfter(HOLD_RECHECK, "holding");
      }
      LOG.info(
          "drain {}: holding pre-drain hook, {} machine(s) on pool {} do not tolerate the maintenance taint yet: {}",
          key,
          s.blockingMachines().size(),
          s.pool(),
          String.join(", ", s.blockingMachines()));
      return Result.requeueAfter(HOLD_RECHECK, "holding");
    } else if (step instanceof DrainStep.RemoveHook s) {
      if (s.poolMissing()
          && writer.ironcore().resources(MachinePool.class).withName(s.pool()).get() != null) {
        LOG.info("drain {}: cache was behind, pool {} exists", key, s.pool());
        return Result.requeueAfter(Duration.ofSeconds(1), "cache behind");
      }
      if (!s.poolMissing()) {
        List<String> stillBlocking = liveBlockingMachines(s.pool());
        if (!stillBlocking.isEmpty()) {
          LOG.info(
              "drain {}: cache was behind, {} machine(s) still block: {}",
              key,
              stillBlocking.size(),
              stillBlocking);
          return Result.requeueAfter(Duration.ofSeconds(1), "cache behind");
        }
      }
      boolean sent =
          writer.patchMetadata(capi, e -> e.removeAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION));
      log(
          sent,
          key,
          s.poolMissing()
              ? "pool " + s.pool() + " does not exist: removed pre-drain hook"
              : "pool " + s.pool() + " drained: removed pre-drain hook");
    } else if (step instanceof DrainStep.WaitForCapi s) {
      LOG.debug("drain {}: waiting for CAPI to remove {}", key, Names.CAPI_MACHINE_FINALIZER);
    } else if (step instanceof DrainStep.DeletePool s) {
      var deleted = writer.ironcore().resources(MachinePool.class).withName(s.pool()).delete();
      log(!deleted.isEmpty(), key, "deleted pool " + s.pool());
    } else if (step instanceof DrainStep.RemoveFinalizer s) {
      boolean sent = writer.patchMetadata(capi, e -> e.removeFinalizer(Names.CLEANUP_FINALIZER));
      log(
          sent,
          key,
          "pool "
              + s.pool()
              + " is gone or being deleted: removed finalizer "
              + Names.CLEANUP_FINALIZER);
    }
    return Result.done();
  }

  private List<String> liveBlockingMachines(String pool) {
    List<Machine> bound =
        writer.ironcore().resources(Machine.class).inAnyNamespace().list().getItems().stream()
            .filter(m -> pool.equals(m.boundPoolName()))
            .collect(Collectors.toList());
    return DrainDecision.blockingMachines(
        writer.ironcore().resources(MachinePool.class).withName(pool).get(), bound);
  }

  private static void log(boolean sent, String key, String what) {
    if (sent) {
      LOG.info("drain {}: {}", key, what);
    }
  }
}

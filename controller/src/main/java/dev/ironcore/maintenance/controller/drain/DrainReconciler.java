package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.controller.PoolConditionWriter;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import dev.ironcore.maintenance.controller.runtime.ApiFailure;
import dev.ironcore.maintenance.controller.runtime.Keys;
import dev.ironcore.maintenance.controller.runtime.Reconciler;
import dev.ironcore.maintenance.controller.runtime.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drain and pool-deletion loop for one CAPI Machine (domain reference §5): takes the single step
 * {@link DrainDecision#decide} picks from the cache, performs it with a fresh read, then writes the
 * pool's {@code Maintenance} condition (only when it changes; before the step when the step deletes
 * the pool) and records the outcome's events. The events of a step's write are recorded right
 * before the write is sent, so a crash (SIGKILL) between the two never loses one. Before releasing
 * the pre-drain hook it confirms against the API server (not the cache) that no bound Machine still
 * blocks (or, for "pool missing", that the pool really does not exist), and before removing our
 * finalizer that the pool is gone or being deleted. Key: the CAPI Machine's {@code namespace/name}.
 */
public final class DrainReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(DrainReconciler.class);

  /**
   * How many blocking Machines the "holding pre-drain hook" line names (then {@code and N more}):
   * the line is logged whenever the set changes, which in a drain of 1,000 Machines is about once
   * per eviction.
   */
  static final int LOGGED_MACHINES = 20;

  private final KubeWriter writer;
  private final LiveBoundMachines live;
  private final ClusterCache cache;
  private final ControllerMetrics metrics;
  private final Predicate<Map<String, String>> selector;
  private final DrainPolicy policy;
  private final Clock clock;
  private final EventRecorder events;
  private final PoolConditionWriter conditions;

  /**
   * The blocking Machines last logged per held drain, so a hold is logged when it changes, not
   * every pass.
   */
  private final Map<String, List<String>> lastHold = new ConcurrentHashMap<>();

  /**
   * The last "cache was behind" line logged per CAPI Machine: the same line again (the pass is
   * retried every second while the cache lags) goes to debug (fresh eyes: a watch that had lost its
   * connection logged it every second for minutes).
   */
  private final Map<String, String> lastBehind = new ConcurrentHashMap<>();

  /** When this process last wrote each pool's Maintenance condition ({@link ProgressThrottle}). */
  private final Map<String, Instant> lastConditionWrite = new ConcurrentHashMap<>();

  /** Blocking Machines per pool of the drains held now (for the per-pool gauge). */
  private final Map<String, Integer> blockingByPool = new ConcurrentHashMap<>();

  /** The pool each held drain (CAPI Machine key) blocks on, so its gauge row can be dropped. */
  private final Map<String, String> heldPool = new ConcurrentHashMap<>();

  /**
   * CAPI Machines (key and uid) and pools (name and uid) whose {@code DrainStarted} this process
   * recorded: a drain that added only the taint a pool lacked (its NoExecute taint put there by
   * hand) records it with the taint write, and must not record it again as "already carries the
   * taints" when the pool turns Draining. Another pool (its {@code status.nodeRef} changed during
   * the deletion, or the pool deleted and created again) gets its own and replaces the entry, so a
   * {@code nodeRef} moved back starts that pool's drain anew. Forgotten when the Machine is gone.
   */
  private final java.util.Set<String> started = ConcurrentHashMap.newKeySet();

  /**
   * @param selector {@code --capi-machine-selector}: which CAPI Machines (by their labels) to
   *     manage
   * @param policy drain timeout and budget
   * @param clock the time holds are measured against
   */
  public DrainReconciler(
      KubeWriter writer,
      ClusterCache cache,
      ControllerMetrics metrics,
      Predicate<Map<String, String>> selector,
      DrainPolicy policy,
      Clock clock,
      EventRecorder events) {
    this.writer = writer;
    this.cache = cache;
    this.metrics = metrics;
    this.selector = selector;
    this.policy = policy;
    this.clock = clock;
    this.events = events;
    this.conditions = new PoolConditionWriter(writer.ironcore(), clock);
    this.live = new LiveBoundMachines(writer.ironcore(), cache.machineClass());
    metrics.drainSteps(
        Arrays.stream(DrainStep.class.getPermittedSubclasses())
            .map(Class::getSimpleName)
            .filter(n -> !n.equals("Nothing"))
            .toList());
  }

  /** The budget's view of the cluster, from the cache. */
  public List<DrainSlot> fleet() {
    return DrainFleet.of(cache.capiMachines(), cache::pool, selector, clock.instant());
  }

  /** How the step's write went. */
  private enum Performed {
    /** A write was sent. */
    SENT,
    /** Nothing needed sending (already so, object gone, or a step without a write). */
    NOTHING,
    /** The cache was behind the API server: look again shortly, change nothing. */
    CACHE_BEHIND
  }

  /**
   * Logs that the cache of CAPI Machine {@code key}'s pass was behind the API server ({@code what}
   * the API server said): at INFO the first time, at debug while the same line repeats.
   */
  private Performed cacheBehind(String key, String what) {
    String line = "drain " + key + ": cache was behind, " + what;
    if (line.equals(lastBehind.put(key, line))) {
      LOG.debug(line);
    } else {
      LOG.info(line);
    }
    return Performed.CACHE_BEHIND;
  }

  /**
   * One pass for CAPI Machine {@code key}. When a request fails because the API server (or an
   * admission or conversion webhook it calls) answered 5xx or not at all, or refused it ({@link
   * ApiFailure#isRefusal}: e.g. an admission policy's denial, RBAC), a {@code DrainWriteFailed}
   * Warning Event on the CAPI Machine says which write and why (written in the background: the API
   * server may be what fails), and the failure goes to the queue's retry. A stale write ({@link
   * dev.ironcore.maintenance.controller.runtime.ObjectChanged}) is decided again without one.
   */
  @Override
  public Result reconcile(String key) {
    CapiMachine cached = cache.capiMachine(key);
    if (cached == null) {
      lastHold.remove(key);
      lastBehind.remove(key);
      started.removeIf(uid -> uid.startsWith(key + "#"));
      String held = heldPool.remove(key);
      if (held != null) {
        unblocked(held); // gone while held (finalizers removed by hand): its gauge row goes too
      }
      return Result.done();
    }
    String[] request = {READING};
    try {
      return reconcile(key, cached, request);
    } catch (RuntimeException e) {
      if ((ApiFailure.isServerSide(e) || ApiFailure.isRefusal(e)) && request[0] != null) {
        writeFailed(cached, request[0], e);
      }
      throw e;
    }
  }

  /**
   * Counts a failed pass and records its {@code DrainWriteFailed} Warning on the CAPI Machine (in
   * the background: the API server may be what fails), naming the request that failed.
   */
  private void writeFailed(CapiMachine cached, String request, RuntimeException e) {
    metrics.drainWriteFailed();
    events.recordInBackground(
        cached,
        "Warning",
        DrainEvent.WRITE_FAILED,
        (cached.nodeName() == null ? "" : "pool " + cached.nodeName() + ": ")
            + request
            + " failed: "
            + ApiFailure.describe(e)
            + "; retrying");
  }

  /** The {@code DrainWriteFailed} message of a failure before any write: a read of the pass. */
  private static final String READING = "reading the CAPI Machines and pools";

  /** The {@code DrainWriteFailed} message of a failed write of the pool's condition. */
  private static final String CONDITION = "writing the pool's Maintenance condition";

  /** What {@code step}'s write does, for the {@code DrainWriteFailed} message. */
  private static String what(DrainStep step) {
    if (step instanceof DrainStep.AddTaints) {
      return "adding the maintenance taints";
    } else if (step instanceof DrainStep.RemoveHook) {
      return "removing the pre-drain hook";
    } else if (step instanceof DrainStep.DeletePool) {
      return "deleting the pool";
    } else if (step instanceof DrainStep.EnsureFinalizerAndHook) {
      return "adding the finalizer and the pre-drain hook";
    } else if (step instanceof DrainStep.RemoveFinalizer
        || step instanceof DrainStep.Release
        || step instanceof DrainStep.SparePool) {
      return "releasing the CAPI Machine";
    }
    return CONDITION;
  }

  /**
   * @param request set to what the pass is about to send before each request, so that a failure
   *     names the request that failed (the step's write, or the condition write before or after it)
   */
  private Result reconcile(String key, CapiMachine cached, String[] request) {
    String node = cached.nodeName();
    MachinePool pool = cache.pool(node);
    List<Machine> bound = node == null ? List.of() : cache.machinesBoundTo(node);
    Map<String, String> labels = cached.getMetadata().getLabels();
    boolean selected = selector.test(labels == null ? Map.of() : labels);
    List<DrainSlot> fleet =
        policy.maxConcurrentDrains() > 0 && DrainDecision.isDeleting(cached) ? fleet() : List.of();
    DrainOutcome outcome =
        DrainDecision.decide(
            new DrainInput(cached, selected, pool, bound, fleet, liveOnSamePool(cached)),
            policy,
            clock);
    DrainStep step = outcome.step();
    if (!(step instanceof DrainStep.Hold)) {
      lastHold.remove(key);
      String held = heldPool.remove(key);
      if (held != null && !held.equals(node)) {
        unblocked(held); // its nodeRef moved
      }
      if (node != null && (held != null || !(step instanceof DrainStep.Nothing))) {
        unblocked(node);
      }
    }
    // the pool's condition before deleting the pool (it is gone after), else after the step
    boolean conditionFirst = step instanceof DrainStep.DeletePool;
    request[0] = CONDITION;
    PoolConditionWriter.Write write = conditionFirst ? writeCondition(key, pool, outcome) : null;
    request[0] = what(step);
    Performed performed;
    try {
      performed =
          perform(
              key,
              step,
              () ->
                  record(outcome.events(), DrainEvent.When.BEFORE_WRITE, pool, cached, null, null));
    } catch (RuntimeException e) {
      if (ApiFailure.isServerSide(e) || ApiFailure.isRefusal(e)) {
        if ((step instanceof DrainStep.RemoveHook s && !s.poolMissing())
            || step instanceof DrainStep.AddTaints) {
          // the Event first: the condition goes to the IronCore API server, which may be the one
          // that does not answer (fresh eyes, session 43: the Event came after two 70 s timeouts)
          writeFailed(cached, request[0], e);
          request[0] = null; // recorded
          if (FailingWrite.shown(
              step, ApiFailure.unanswered(e), writer.capi() == writer.ironcore())) {
            showWriteFailing(key, cached, pool, step);
          } else {
            LOG.debug("drain {}: the write got no answer; not writing the pool's condition", key);
          }
        }
      }
      throw e;
    }
    if (performed == Performed.CACHE_BEHIND) {
      return Result.requeueAfter(Duration.ofSeconds(1), "cache behind");
    }
    lastBehind.remove(key);
    if (!(step instanceof DrainStep.Nothing)) {
      metrics.drainStep(step.getClass().getSimpleName()); // taken: a failed write threw above
    }
    if (step instanceof DrainStep.Hold && node != null) {
      Duration wait =
          ProgressThrottle.delay(
              pool, outcome.condition(), lastConditionWrite.get(node), clock.instant());
      if (wait != null) {
        // only the progress message changed, and it was written moments ago: write it (and its
        // DrainBlocked event) on a later pass
        Duration next = outcome.requeueAfter();
        return Result.requeueAfter(
            next == null || wait.compareTo(next) < 0 ? wait : next, "progress throttled");
      }
    }
    if (!conditionFirst) {
      request[0] = CONDITION;
      write = writeCondition(key, pool, outcome);
    }
    // a transition's event (DrainStarted, DrainStuck) before the pass's progress (DrainBlocked)
    record(outcome.events(), DrainEvent.When.REASON_CHANGED, pool, cached, write, outcome);
    record(outcome.events(), DrainEvent.When.EVERY_PASS, pool, cached, null, null);
    record(outcome.events(), DrainEvent.When.FIRST_PASS, pool, cached, null, null);
    if (step instanceof DrainStep.DeletePool && node != null) {
      lastConditionWrite.remove(node);
      conditions.forget(node);
    }
    // also a drain that ends because its pool is gone (deleted by hand mid-drain): the hook was
    // held until now all the same
    if (step instanceof DrainStep.RemoveHook && performed == Performed.SENT) {
      Instant deletedAt = DrainDecision.deletedAt(cached);
      if (deletedAt != null) {
        metrics.drainCompleted(Duration.between(deletedAt, clock.instant()));
      }
    }
    return outcome.requeueAfter() == null
        ? Result.done()
        : Result.requeueAfter(outcome.requeueAfter(), step.getClass().getSimpleName());
  }

  /**
   * The other CAPI Machines, not being deleted, whose nodeRef names {@code capi}'s (from the cache;
   * only looked up while {@code capi} is being deleted), as sorted {@code namespace/name}.
   */
  private List<String> liveOnSamePool(CapiMachine capi) {
    String node = capi.nodeName();
    if (node == null || !DrainDecision.isDeleting(capi)) {
      return List.of();
    }
    String key = DrainDecision.key(capi);
    return cache.capiMachinesOnNode(node).stream()
        .filter(m -> !DrainDecision.isDeleting(m))
        .map(DrainDecision::key)
        .filter(k -> !k.equals(key))
        .sorted()
        .toList();
  }

  /**
   * While a drain's write to the CAPI Machine or the pool fails (an admission webhook refusing or
   * timing out, the API server answering 5xx), the pool's {@code Draining} condition says which
   * write ({@link FailingWrite}: {@code DrainStuck} past {@code --drain-timeout}), instead of
   * naming the last Machine it waited for or nothing at all (fresh eyes: with the hook's removal
   * refused, "waiting for 1 Machine: vm-g1 (deleting, held by finalizer ...)" stayed for as long as
   * the hook did, with vm-g1 gone, and docs/operations.md sent the operator to its poollet; with
   * the taint write failing, the pool showed no Maintenance condition). Best effort: the failure
   * itself is reported ({@code DrainWriteFailed}) and retried by the caller; a failing condition
   * write or {@code DrainStuck} Event is only logged here.
   */
  private void showWriteFailing(String key, CapiMachine capi, MachinePool pool, DrainStep step) {
    try {
      DrainOutcome failing = FailingWrite.outcome(capi, pool, step, policy, clock);
      PoolConditionWriter.Write write = writeCondition(key, pool, failing);
      record(failing.events(), DrainEvent.When.REASON_CHANGED, pool, capi, write, failing);
    } catch (RuntimeException e) {
      LOG.debug("drain {}: could not show the failing write on the pool: {}", key, e.toString());
    }
  }

  /**
   * Sets the outcome's Maintenance condition on {@code pool} (the cache's copy; when it changes);
   * or null.
   */
  private PoolConditionWriter.Write writeCondition(
      String key, MachinePool pool, DrainOutcome outcome) {
    return outcome.condition() == null ? null : writeCondition(key, pool, outcome.condition());
  }

  private PoolConditionWriter.Write writeCondition(
      String key, MachinePool pool, MaintenanceCondition c) {
    if (pool == null) {
      return null;
    }
    String node = pool.getMetadata().getName();
    PoolConditionWriter.Write write =
        conditions.set(pool, MaintenanceCondition.TYPE, c.status(), c.reason(), c.message());
    if (write.written()) {
      lastConditionWrite.put(node, clock.instant());
      LOG.info(
          "drain {}: pool {} condition Maintenance={} ({}): {}",
          key,
          node,
          c.status(),
          c.reason(),
          c.message());
    }
    return write;
  }

  /**
   * Records the events among {@code all} that are due {@code when}; {@code REASON_CHANGED} ones
   * only when {@code write} moved the condition to the outcome's reason.
   */
  private void record(
      List<DrainEvent> all,
      DrainEvent.When when,
      MachinePool pool,
      CapiMachine capi,
      PoolConditionWriter.Write write,
      DrainOutcome outcome) {
    for (DrainEvent e : all) {
      if (e.when() != when
          || (when == DrainEvent.When.REASON_CHANGED
              && (write == null || !write.reasonChanged(outcome.condition().reason())))) {
        continue;
      }
      HasMetadata on = e.on() == DrainEvent.Subject.POOL ? pool : capi;
      if (on == null) {
        continue;
      }
      String start =
          capi == null
              ? null
              : DrainDecision.key(capi)
                  + "#"
                  + capi.getMetadata().getUid()
                  + "#"
                  + (pool == null
                      ? ""
                      : pool.getMetadata().getName() + "/" + pool.getMetadata().getUid());
      if (DrainEvent.STARTED.equals(e.reason()) && start != null) {
        // one pool per CAPI Machine: a nodeRef moved back to an earlier pool starts its drain anew
        String machine = start.substring(0, start.lastIndexOf('#') + 1);
        started.removeIf(s -> s.startsWith(machine) && !s.equals(start));
        if (!started.add(start)) {
          continue; // this drain's start on this pool is on record already
        }
      }
      if (DrainEvent.COMPLETED.equals(e.reason())) {
        // a DrainBlocked still held for a burst would be written after this one and read as the
        // drain's last word (fresh eyes, session 41): written first
        events.writeHeldNow(on, DrainEvent.BLOCKED);
      }
      if (when == DrainEvent.When.BEFORE_WRITE) {
        // a retried write: not again; an event the API server could not take holds the write
        // DrainCompleted's message names the time the drain took, which grows with each retry
        boolean onRecord =
            DrainEvent.COMPLETED.equals(e.reason())
                ? events.recordOncePerReason(on, e.type(), e.reason(), e.message())
                : events.recordOnce(on, e.type(), e.reason(), e.message());
        if (!onRecord) {
          if (DrainEvent.STARTED.equals(e.reason()) && start != null) {
            started.remove(start);
          }
          throw new dev.ironcore.maintenance.controller.runtime.HeldForApiServer(
              "drain "
                  + (capi == null ? "" : DrainDecision.key(capi))
                  + ": its "
                  + e.reason()
                  + " event could not be written: the write it announces waits; retrying both");
        }
      } else if (when == DrainEvent.When.EVERY_PASS) {
        // a pass's progress (DrainBlocked, PoolShared), whose state is written already: off the
        // worker, so a CAPI API server that does not answer (frozen or cut off: up to the loops'
        // 70 s request timeout) holds the Event, not the pass (fresh eyes: with the CAPI API server
        // stopped, a DrainBlocked write held the worker, and the pool's condition in the IronCore
        // API kept naming Machines long gone)
        events.recordInBackground(on, e.type(), e.reason(), e.message());
      } else if (when == DrainEvent.When.FIRST_PASS) {
        events.recordOnceInBackground(on, e.type(), e.reason(), e.message());
      } else {
        events.record(on, e.type(), e.reason(), e.message());
      }
    }
  }

  private void unblocked(String pool) {
    if (blockingByPool.remove(pool) != null) {
      metrics.blockingMachines(blockingByPool);
    }
  }

  /**
   * Performs {@code step}; {@code announce} records its {@link DrainEvent.When#BEFORE_WRITE} events
   * right before the write is sent, only when one is.
   */
  private Performed perform(String key, DrainStep step, Runnable announce) {
    Resource<CapiMachine> capi =
        writer
            .capi()
            .resources(CapiMachine.class)
            .inNamespace(Keys.namespace(key))
            .withName(Keys.name(key));
    if (step instanceof DrainStep.EnsureFinalizerAndHook) {
      boolean sent =
          writer.patchMetadataWhileUnchanged(
              capi,
              live -> live.getMetadata().getDeletionTimestamp() == null,
              e ->
                  e.ensureFinalizer(Names.CLEANUP_FINALIZER)
                      .ensureAnnotation(
                          Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE));
      return log(sent, key, "added finalizer and pre-drain hook");
    } else if (step instanceof DrainStep.Release s) {
      boolean sent =
          writer.patchMetadata(
              capi,
              live -> true,
              e ->
                  e.removeAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION)
                      .removeFinalizer(Names.CLEANUP_FINALIZER),
              announce);
      return log(sent, key, s.reason() + ": released pre-drain hook and finalizer");
    } else if (step instanceof DrainStep.Queue s) {
      LOG.debug(
          "drain {}: pool {} queued at position {}; draining {}",
          key,
          s.pool(),
          s.position(),
          s.inProgress());
    } else if (step instanceof DrainStep.AddTaints s) {
      var added = writer.addTaints(s.pool(), DrainDecision.MAINTENANCE_TAINTS, announce);
      if (!added.isEmpty()) {
        LOG.info("drain {}: added taints {} to pool {}", key, added, s.pool());
        return Performed.SENT;
      }
    } else if (step instanceof DrainStep.Hold s) {
      heldPool.put(key, s.pool());
      Integer before = blockingByPool.put(s.pool(), s.blockingMachines().size());
      if (before == null || before != s.blockingMachines().size()) {
        metrics.blockingMachines(blockingByPool);
      }
      if (!s.blockingMachines().equals(lastHold.put(key, s.blockingMachines()))) {
        LOG.info(
            "drain {}: holding pre-drain hook, {} machine(s) on pool {} do not tolerate the maintenance taint yet: {}",
            key,
            s.blockingMachines().size(),
            s.pool(),
            DrainDecision.firstFew(s.blockingMachines(), LOGGED_MACHINES));
      }
    } else if (step instanceof DrainStep.RemoveHook s) {
      if (s.poolMissing() && writer.livePool(s.pool()) != null) {
        return cacheBehind(key, "pool " + s.pool() + " exists");
      }
      if (!s.poolMissing()) {
        List<String> stillBlocking = liveBlockingMachines(s.pool());
        if (!stillBlocking.isEmpty()) {
          return cacheBehind(
              key, stillBlocking.size() + " machine(s) still block: " + stillBlocking);
        }
      }
      boolean sent =
          writer.patchMetadata(
              capi,
              live -> true,
              e -> e.removeAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION),
              announce);
      return log(
          sent,
          key,
          s.poolMissing()
              ? "pool " + s.pool() + " does not exist: removed pre-drain hook"
              : "pool " + s.pool() + " drained: removed pre-drain hook");
    } else if (step instanceof DrainStep.SharedPool s) {
      // every held pass; the PoolShared Warning Event (its count growing) is what operators see
      LOG.debug(
          "drain {}: holding pre-drain hook, pool {} is also the nodeRef of live CAPI Machine(s) {}",
          key,
          s.pool(),
          s.liveCapiMachines());
    } else if (step instanceof DrainStep.WaitForCapi) {
      LOG.debug("drain {}: waiting for CAPI to remove {}", key, Names.CAPI_MACHINE_FINALIZER);
    } else if (step instanceof DrainStep.DeletePool s) {
      return log(
          PoolDelete.ifSame(writer, s.pool(), s.uid(), announce), key, "deleted pool " + s.pool());
    } else if (step instanceof DrainStep.SparePool s) {
      boolean sent =
          writer.patchMetadata(
              capi, live -> true, e -> e.removeFinalizer(Names.CLEANUP_FINALIZER), announce);
      return log(
          sent,
          key,
          "pool "
              + s.pool()
              + (s.liveCapiMachines().isEmpty()
                  ? " was re-created after the deletion and never drained"
                  : " is also the nodeRef of live CAPI Machine(s) " + s.liveCapiMachines())
              + ": kept it, removed finalizer "
              + Names.CLEANUP_FINALIZER);
    } else if (step instanceof DrainStep.RemoveFinalizer s) {
      // the last write: the CAPI Machine goes, and no later pass deletes the pool; a pool the cache
      // misses (an informer listing anew, a silent watch) would stay, tainted and Drained (code
      // review, session 51): the API server confirms it is gone or being deleted
      MachinePool livePool = writer.livePool(s.pool());
      if (livePool != null && !DrainDecision.isDeleting(livePool)) {
        return cacheBehind(key, "pool " + s.pool() + " exists");
      }
      boolean sent = writer.patchMetadata(capi, e -> e.removeFinalizer(Names.CLEANUP_FINALIZER));
      return log(
          sent,
          key,
          "pool "
              + s.pool()
              + " is gone or being deleted: removed finalizer "
              + Names.CLEANUP_FINALIZER);
    }
    return Performed.NOTHING;
  }

  /**
   * The Machines bound to {@code pool} that block its drain, from the API server (not the cache):
   * {@link LiveBoundMachines}.
   */
  private List<String> liveBlockingMachines(String pool) {
    return DrainDecision.blockingMachines(writer.livePool(pool), live.boundTo(pool));
  }

  private static Performed log(boolean sent, String key, String what) {
    if (sent) {
      LOG.info("drain {}: {}", key, what);
      return Performed.SENT;
    }
    return Performed.NOTHING;
  }
}

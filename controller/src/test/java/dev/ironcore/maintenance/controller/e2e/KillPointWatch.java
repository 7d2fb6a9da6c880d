package dev.ironcore.maintenance.controller.e2e;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolV1alpha2;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.Tolerations;
import dev.ironcore.maintenance.controller.drain.MaintenanceCondition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Watches one {@link RandomKillPointsE2ETest} world the whole time (informers in the test JVM), and
 *
 * <ul>
 *   <li>plays the machinepoollet (releases a deleting Machine after 0–1 s) and Cluster API (drops
 *       {@code machine.cluster.x-k8s.io} 0–1 s after the pre-drain hook is gone), independent of
 *       the controller process, so flows move on while it is dead;
 *   <li>checks the invariants on every change: no pool deleted before CAPI finished with its node,
 *       no hook released while a bound Machine still blocks (confirmed by a live read), no Machine
 *       that tolerates for good deleted, no delayed eviction before {@code timeAdded +
 *       tolerationSeconds}, a drained pool's {@code Maintenance} condition {@code Drained} when it
 *       is deleted;
 *   <li>tells the kill loop about each write of the controller it sees (taints, deletions,
 *       conditions, finalizer and hook), so it can kill the process right after one.
 * </ul>
 */
final class KillPointWatch implements AutoCloseable {
  private final ControllerWorld world;
  private final Map<String, KillFlow> byPool;
  private final Map<String, KillFlow> byMachine;
  private final Random random;
  private final ScheduledExecutorService actors = Executors.newScheduledThreadPool(2);
  private final Queue<String> violations = new ConcurrentLinkedQueue<>();
  private final Set<String> capiFinished = ConcurrentHashMap.newKeySet();
  private final Set<String> scheduled = ConcurrentHashMap.newKeySet();
  private final Set<String> deletedPools = ConcurrentHashMap.newKeySet();
  private final AtomicInteger writes = new AtomicInteger();
  private volatile Consumer<String> onWrite = w -> {};
  private final List<SharedIndexInformer<?>> informers;

  /**
   * @param byPool the flows by pool name, filled while the test runs
   * @param byMachine the flows by IronCore Machine name
   */
  KillPointWatch(
      ControllerWorld world,
      Map<String, KillFlow> byPool,
      Map<String, KillFlow> byMachine,
      long seed) {
    this.world = world;
    this.byPool = byPool;
    this.byMachine = byMachine;
    this.random = new Random(seed);
    informers =
        List.of(
            world
                .ironcore
                .resources(MachineV1alpha2.class)
                .inNamespace(world.ns)
                .inform(handler(this::machine), 0),
            world
                .ironcore
                .resources(MachinePoolV1alpha2.class)
                .withLabel(KillFlow.LABEL, world.suffix)
                .inform(handler(this::pool), 0),
            world
                .client
                .resources(CapiMachine.class)
                .inNamespace(world.ns)
                .inform(handler(this::capiMachine), 0));
  }

  /** Called (on a watch thread) with a description of each controller write seen. */
  void onWrite(Consumer<String> listener) {
    onWrite = listener;
  }

  int writes() {
    return writes.get();
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  void violation(String v) {
    violations.add(v);
  }

  /** The CAPI Machine as last seen (null when gone). */
  CapiMachine capiMachine(String name) {
    return (CapiMachine) find(informers.get(2), name);
  }

  Machine machine(String name) {
    return (Machine) find(informers.get(0), name);
  }

  MachinePool pool(String name) {
    return (MachinePool) find(informers.get(1), name);
  }

  private static Object find(SharedIndexInformer<?> informer, String name) {
    return informer.getStore().list().stream()
        .filter(o -> ((HasMetadata) o).getMetadata().getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  private interface Change<T> {
    void on(T before, T after);
  }

  private static <T> ResourceEventHandler<T> handler(Change<T> change) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        change.on(null, obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        change.on(oldObj, newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        change.on(obj, null);
      }
    };
  }

  private void write(String what) {
    writes.incrementAndGet();
    onWrite.accept(what);
  }

  private static boolean deleting(HasMetadata o) {
    return o != null && o.getMetadata().getDeletionTimestamp() != null;
  }

  private static boolean hasFinalizer(HasMetadata o, String f) {
    return o != null
        && o.getMetadata().getFinalizers() != null
        && o.getMetadata().getFinalizers().contains(f);
  }

  private static boolean hasHook(HasMetadata o) {
    return o != null
        && o.getMetadata().getAnnotations() != null
        && o.getMetadata().getAnnotations().containsKey(Names.PRE_DRAIN_HOOK_ANNOTATION);
  }

  private void machine(Machine before, Machine after) {
    if (after == null || !deleting(after) || deleting(before)) {
      return;
    }
    String name = after.getMetadata().getName();
    write("Machine " + name + " evicted");
    KillFlow flow = byMachine.get(name);
    if (flow != null && flow.tolerant.contains(name)) {
      violation("Machine " + name + " tolerates for good, yet it was deleted (" + flow + ")");
    }
    Long seconds = flow == null ? null : flow.delayed.get(name);
    Instant added = flow == null ? null : flow.timeAdded;
    if (seconds != null && added != null) {
      Instant at = Instant.parse(after.getMetadata().getDeletionTimestamp());
      if (at.isBefore(added.plusSeconds(seconds))) {
        violation(
            "Machine "
                + name
                + " evicted at "
                + at
                + ", before timeAdded "
                + added
                + " + tolerationSeconds "
                + seconds);
      }
    }
    if (hasFinalizer(after, Names.POOLLET_FINALIZER) && scheduled.add("poollet/" + name)) {
      var unused =
          actors.schedule(
              () -> retried("poollet release of " + name, () -> world.poolletReleases(name)),
              delayMillis(),
              TimeUnit.MILLISECONDS);
    }
  }

  private void capiMachine(CapiMachine before, CapiMachine after) {
    if (after == null) {
      return;
    }
    String name = after.getMetadata().getName();
    if (before != null
        && (hasHook(before) != hasHook(after)
            || hasFinalizer(before, Names.CLEANUP_FINALIZER)
                != hasFinalizer(after, Names.CLEANUP_FINALIZER))) {
      write(
          "CAPI Machine "
              + name
              + (hasHook(after) ? " hook" : " no hook")
              + (hasFinalizer(after, Names.CLEANUP_FINALIZER) ? " finalizer" : " no finalizer"));
    }
    String pool = after.nodeName();
    if (deleting(after) && hasHook(before) && !hasHook(after) && pool != null) {
      actors.execute(() -> checkDrained(name, pool));
    }
    if (deleting(after)
        && !hasHook(after)
        && hasFinalizer(after, Names.CAPI_MACHINE_FINALIZER)
        && scheduled.add("capi/" + name)) {
      var unused =
          actors.schedule(
              () -> {
                if (pool != null) {
                  capiFinished.add(pool);
                }
                retried("CAPI finishing " + name, () -> world.capiFinishes(name));
              },
              delayMillis(),
              TimeUnit.MILLISECONDS);
    }
  }

  /** The hook of {@code capi} was just released: no Machine bound to {@code pool} may block. */
  private void checkDrained(String capi, String pool) {
    MachinePool live = world.ironcore.resources(MachinePoolV1alpha2.class).withName(pool).get();
    List<Taint> taints =
        live == null || live.getSpec() == null ? List.of() : live.getSpec().taintsOrEmpty();
    Taint maintenance = new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoExecute");
    for (Machine m :
        world.ironcore.resources(MachineV1alpha2.class).inNamespace(world.ns).list().getItems()) {
      if (pool.equals(m.boundPoolName())
          && !Tolerations.toleratedForever(maintenance, m.getSpec().getTolerations())) {
        violation(
            "pre-drain hook of "
                + capi
                + " released while Machine "
                + m.getMetadata().getName()
                + " still blocks pool "
                + pool
                + " (taints "
                + taints
                + ")");
      }
    }
  }

  private void pool(MachinePool before, MachinePool after) {
    String name = (after != null ? after : before).getMetadata().getName();
    if (after == null || deleting(after)) {
      if (!deletedPools.add(name)) {
        return;
      }
      MachinePool last = after != null ? after : before;
      write("MachinePool " + name + " deleted");
      KillFlow flow = byPool.get(name);
      if (flow == null || flow.kind != KillFlow.Kind.DRAIN) {
        violation("MachinePool " + name + " deleted, but it was never drained (" + flow + ")");
      } else if (!capiFinished.contains(name)) {
        violation("MachinePool " + name + " deleted before CAPI finished with " + flow.capiMachine);
      }
      Condition c = maintenance(last);
      if (c == null || !MaintenanceCondition.DRAINED_REASON.equals(c.getReason())) {
        violation(
            "MachinePool "
                + name
                + " deleted with Maintenance "
                + (c == null
                    ? "unset"
                    : c.getStatus() + " " + c.getReason() + ": " + c.getMessage()));
      }
      return;
    }
    if (before == null) {
      return;
    }
    if (maintenanceTaints(before) != maintenanceTaints(after)) {
      write("MachinePool " + name + " has " + maintenanceTaints(after) + " maintenance taints");
    }
    Condition was = maintenance(before);
    Condition is = maintenance(after);
    if (is != null
        && (was == null
            || !Objects.equals(was.getReason(), is.getReason())
            || !Objects.equals(was.getMessage(), is.getMessage()))) {
      write("MachinePool " + name + " Maintenance=" + is.getReason());
    }
  }

  private static long maintenanceTaints(MachinePool p) {
    return p.getSpec() == null
        ? 0
        : p.getSpec().taintsOrEmpty().stream()
            .filter(t -> t != null && Names.MAINTENANCE_TAINT_KEY.equals(t.getKey()))
            .count();
  }

  private static Condition maintenance(MachinePool p) {
    return p.getStatus() == null
        ? null
        : Conditions.find(p.getStatus().getConditions(), MaintenanceCondition.TYPE);
  }

  /** Runs {@code action}, retrying a refused write (conflict) a few times. */
  private void retried(String what, Runnable action) {
    for (int attempt = 1; ; attempt++) {
      try {
        action.run();
        return;
      } catch (RuntimeException e) {
        if (attempt == 20) {
          violation("test actor gave up: " + what + ": " + e);
          return;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private long delayMillis() {
    synchronized (random) {
      return random.nextInt(1000);
    }
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    actors.shutdownNow();
  }
}

package dev.ironcore.maintenance.controller.e2e;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.MachinePoolV1alpha2;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.controller.drain.DrainEvent;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One flow of {@link RandomKillPointsE2ETest} on the real API server, with what must hold for it:
 *
 * <ul>
 *   <li>{@link Kind#DRAIN}: a pool with a random mix of Machines (not tolerating the maintenance
 *       taint, tolerating it for good, tolerating it with {@code tolerationSeconds: 1}; or none: an
 *       emptied pool) and its CAPI Machine, which the flow deletes once the controller marked it;
 *       the controller taints, evicts, holds, releases the hook, and deletes the pool after CAPI
 *       finished with the node;
 *   <li>{@link Kind#EVICTION}: a pool that gets a user's NoExecute taint {@code k} with {@code
 *       timeAdded} (as the mutating webhook writes it), Machines not tolerating it, tolerating it
 *       for 1–3 s, and tolerating it for good; the pool stays.
 * </ul>
 */
final class KillFlow {
  /** The user's taint key of eviction flows. */
  static final String USER_TAINT = "k";

  /** Label on every object of one test run: pools, CAPI Machines. */
  static final String LABEL = "kill-points";

  enum Kind {
    DRAIN,
    EVICTION
  }

  enum State {
    /** Objects created; a drain waits for the controller's finalizer and hook. */
    CREATED,
    /** CAPI Machine deleted, or taint added. */
    STARTED,
    DONE
  }

  final Kind kind;
  final String pool;

  /** The drain's CAPI Machine (null for an eviction flow). */
  final String capiMachine;

  /** Machines the controller must evict. */
  final List<String> evicted = new ArrayList<>();

  /** Machines that tolerate for good: never deleted. */
  final List<String> tolerant = new ArrayList<>();

  /** Eviction flows: Machines tolerating the user taint for these seconds only. */
  final Map<String, Long> delayed = new LinkedHashMap<>();

  volatile State state = State.CREATED;

  /** Eviction flows: the taint's {@code timeAdded}. */
  volatile Instant timeAdded;

  volatile long startedNanos;
  volatile long doneNanos;

  private KillFlow(Kind kind, String pool, String capiMachine) {
    this.kind = kind;
    this.pool = pool;
    this.capiMachine = capiMachine;
  }

  /** Creates the objects of a drain flow named {@code base}-suffix. */
  static KillFlow drain(ControllerWorld world, String base, Random random) {
    KillFlow f = new KillFlow(Kind.DRAIN, world.poolName(base), base + "-node");
    createPool(world, f.pool);
    if (random.nextInt(4) > 0) { // an emptied pool otherwise
      int evict = random.nextInt(3);
      for (int i = 0; i < evict; i++) {
        f.evicted.add(f.machine(world, base + "-a" + i, null));
      }
      if (random.nextBoolean()) {
        f.tolerant.add(
            f.machine(
                world,
                base + "-t",
                new Toleration(Names.MAINTENANCE_TAINT_KEY, Toleration.EXISTS, null, null)));
      }
      if (random.nextBoolean()) {
        Toleration briefly =
            new Toleration(Names.MAINTENANCE_TAINT_KEY, Toleration.EXISTS, null, "NoExecute");
        briefly.setTolerationSeconds(1L);
        f.evicted.add(f.machine(world, base + "-d", briefly));
      }
    }
    world.createCapiMachine(f.capiMachine, f.pool, Map.of(LABEL, world.suffix));
    return f;
  }

  /** Creates the objects of an eviction flow named {@code base}-suffix. */
  static KillFlow eviction(ControllerWorld world, String base, Random random) {
    KillFlow f = new KillFlow(Kind.EVICTION, world.poolName(base), null);
    createPool(world, f.pool);
    f.evicted.add(f.machine(world, base + "-a", null));
    long seconds = 1 + random.nextInt(3);
    Toleration briefly = new Toleration(USER_TAINT, Toleration.EXISTS, null, "NoExecute");
    briefly.setTolerationSeconds(seconds);
    String d = f.machine(world, base + "-d", briefly);
    f.evicted.add(d);
    f.delayed.put(d, seconds);
    f.tolerant.add(
        f.machine(world, base + "-t", new Toleration(USER_TAINT, Toleration.EXISTS, null, null)));
    return f;
  }

  /**
   * Drain: deletes the CAPI Machine (as Cluster API does on scale-down). Eviction: adds the
   * NoExecute taint with {@code timeAdded} = now in whole seconds.
   */
  void start(ControllerWorld world) {
    startedNanos = System.nanoTime();
    if (kind == Kind.DRAIN) {
      world.deleteCapiMachine(capiMachine);
    } else {
      Instant added = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      timeAdded = added;
      world
          .ironcore
          .resources(MachinePoolV1alpha2.class)
          .withName(pool)
          .patch(
              PatchContext.of(PatchType.JSON),
              "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\""
                  + USER_TAINT
                  + "\",\"effect\":\"NoExecute\",\"timeAdded\":\""
                  + added
                  + "\"}]}]");
    }
    state = State.STARTED;
  }

  /** Event reasons that must be on each object of this flow at the end (by object name). */
  Map<String, List<String>> expectedEvents() {
    Map<String, List<String>> expected = new LinkedHashMap<>();
    if (kind == Kind.DRAIN) {
      expected.put(
          capiMachine, List.of(DrainEvent.STARTED, DrainEvent.COMPLETED, DrainEvent.POOL_DELETED));
    }
    evicted.forEach(m -> expected.put(m, List.of(Names.EVICTED_REASON)));
    return expected;
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + pool
        + " (evicted "
        + evicted
        + ", tolerant "
        + tolerant
        + ")";
  }

  private static void createPool(ControllerWorld world, String name) {
    MachinePoolV1alpha2 p = new MachinePoolV1alpha2();
    p.setMetadata(
        new ObjectMetaBuilder().withName(name).withLabels(Map.of(LABEL, world.suffix)).build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setProviderID("ironcore://" + name);
    p.setSpec(spec);
    world.ironcore.resources(MachinePoolV1alpha2.class).resource(p).create();
  }

  /** A Machine bound to this flow's pool, holding the poollet finalizer. */
  private String machine(ControllerWorld world, String name, Toleration toleration) {
    MachineV1alpha2 m = new MachineV1alpha2();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(world.ns)
            .withFinalizers(List.of(Names.POOLLET_FINALIZER))
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachineClassRef(new LocalRef("x3-small"));
    spec.setMachinePoolRef(new LocalRef(pool));
    spec.setTolerations(toleration == null ? null : List.of(toleration));
    m.setSpec(spec);
    world.ironcore.resources(MachineV1alpha2.class).inNamespace(world.ns).resource(m).create();
    return name;
  }
}

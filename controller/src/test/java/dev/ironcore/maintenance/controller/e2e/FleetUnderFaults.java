package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.drain.DrainEvent;
import dev.ironcore.maintenance.controller.drain.MaintenanceCondition;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many pools drained at once while a fault test breaks the controller's connection to the API
 * server, with the checks every fault test makes afterwards. The test's own client talks to the API
 * server directly (never through the fault), and this class acts as the machinepoollet (releases a
 * deleting Machine at once) and as CAPI (drops {@code machine.cluster.x-k8s.io} once the pre-drain
 * hook is gone), checking at each of those moments:
 *
 * <ul>
 *   <li>a tolerating Machine is never evicted;
 *   <li>the hook is removed only after every bound, non-tolerating Machine is gone;
 *   <li>a pool is deleted only after CAPI finished with its node;
 *   <li>no pool's {@code Maintenance} condition ever says {@code DrainStuck}.
 * </ul>
 */
final class FleetUnderFaults implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FleetUnderFaults.class);

  /** One node: its CAPI Machine, pool, the Machines that must go and the one that stays. */
  record Node(String capi, String pool, List<String> blocking, String tolerant) {}

  private final ControllerWorld world;
  private final List<Node> nodes;
  private final Map<String, Node> byCapi;
  private final Set<String> violations = ConcurrentHashMap.newKeySet();
  private final Set<String> capiFinished = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService actors = Executors.newSingleThreadScheduledExecutor();
  private volatile boolean acting;

  private FleetUnderFaults(ControllerWorld world, List<Node> nodes) {
    this.world = world;
    this.nodes = nodes;
    this.byCapi = nodes.stream().collect(Collectors.toMap(Node::capi, n -> n));
  }

  /**
   * Creates {@code pools} pools, each with {@code blockingPerPool} Machines that do not tolerate
   * the maintenance taint, one that does, and a CAPI Machine whose node is the pool (4 threads).
   */
  static FleetUnderFaults create(ControllerWorld world, int pools, int blockingPerPool)
      throws Exception {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < pools; i++) {
      List<String> blocking = new ArrayList<>();
      for (int j = 0; j < blockingPerPool; j++) {
        blocking.add("vm-" + i + "-" + j);
      }
      nodes.add(new Node("node-" + i, world.poolName("f" + i), blocking, "vm-" + i + "-t"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (Node n : nodes) {
        done.add(
            pool.submit(
                () -> {
                  world.createPool(n.pool(), List.of());
                  n.blocking().forEach(m -> world.createMachine(m, n.pool()));
                  world.createMachine(n.tolerant(), n.pool(), toleratesMaintenance());
                  world.createCapiMachine(n.capi(), n.pool(), Map.of());
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return new FleetUnderFaults(world, nodes);
  }

  List<Node> nodes() {
    return nodes;
  }

  /** True once the controller has put its finalizer and hook on every CAPI Machine. */
  boolean allManaged() {
    List<CapiMachine> all =
        world.client.resources(CapiMachine.class).inNamespace(world.ns).list().getItems();
    return all.size() == nodes.size()
        && all.stream()
            .allMatch(
                m ->
                    hasHook(m)
                        && m.getMetadata().getFinalizers().contains(Names.CLEANUP_FINALIZER));
  }

  /** Starts acting as poollet and CAPI (a pass every 250 ms), checking the invariants. */
  void startActing() {
    acting = true;
    actors.scheduleWithFixedDelay(this::actSafely, 0, 250, TimeUnit.MILLISECONDS);
  }

  /** Deletes every CAPI Machine at once (8 threads), as a scale-down of the whole fleet. */
  void deleteAllCapiMachines() throws Exception {
    deleteCapiMachines(nodes);
  }

  /** Deletes the CAPI Machines of {@code some} at once (8 threads). */
  void deleteCapiMachines(List<Node> some) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (Node n : some) {
        done.add(pool.submit(() -> world.deleteCapiMachine(n.capi())));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  /** True once a Machine of one of {@code some} was evicted (deleting or already gone). */
  boolean evictionStarted(List<Node> some) {
    for (Node n : some) {
      for (String m : n.blocking()) {
        Machine live = world.machine(m);
        if (live == null || live.getMetadata().getDeletionTimestamp() != null) {
          return true;
        }
      }
    }
    return false;
  }

  /** What is left: CAPI Machines and pools of this fleet that still exist. */
  String remaining() {
    int capi =
        world.client.resources(CapiMachine.class).inNamespace(world.ns).list().getItems().size();
    Set<String> ours = nodes.stream().map(Node::pool).collect(Collectors.toSet());
    long pools =
        world.ironcore.resources(MachinePool.class).list().getItems().stream()
            .filter(p -> ours.contains(p.getMetadata().getName()))
            .count();
    return capi + " CAPI Machines and " + pools + " pools left";
  }

  /** Waits (up to {@code atMost}) until every CAPI Machine and every pool of the fleet is gone. */
  void awaitAllDrained(Duration atMost) {
    Awaitility.await()
        .atMost(atMost)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(remaining()).isEqualTo("0 CAPI Machines and 0 pools left"));
    LOG.info("fleet of {} pools drained and deleted", nodes.size());
  }

  /** {@link #assertFlowInvariants()} and {@link #assertEventsOf} for every node. */
  void assertInvariants() {
    assertFlowInvariants();
    assertEventsOf(nodes);
  }

  /**
   * The invariants checked while acting held, and every tolerating Machine is still there and not
   * deleting.
   */
  void assertFlowInvariants() {
    assertThat(violations).as("invariants broken while draining").isEmpty();
    for (Node n : nodes) {
      Machine t = world.machine(n.tolerant());
      assertThat(t).as(n.tolerant() + " exists").isNotNull();
      assertThat(t.getMetadata().getDeletionTimestamp()).as(n.tolerant() + " not evicted").isNull();
    }
  }

  /**
   * Each step of the drains of {@code some} left its event (waiting up to 60 s, as failed Event
   * writes are retried): {@code DrainStarted}, {@code DrainCompleted} and {@code PoolDeleted} on
   * each CAPI Machine, {@code Evicted} on each blocking Machine and never on a tolerating one; no
   * Warning event at all in the namespace, no {@code DrainCancelled} on a pool.
   */
  void assertEventsOf(List<Node> some) {
    ControllerWorld.eventually()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertEvents(some));
    LOG.info("fleet invariants and events checked");
  }

  private void assertEvents(List<Node> some) {
    Map<String, Set<String>> reasons = new HashMap<>();
    List<String> warnings = new ArrayList<>();
    for (Event e : world.client.v1().events().inNamespace(world.ns).list().getItems()) {
      reasons
          .computeIfAbsent(e.getInvolvedObject().getName(), k -> new HashSet<>())
          .add(e.getReason());
      // a write or eviction the fault proxy failed is reported as it happens (DrainWriteFailed,
      // EvictionFailed naming the injected answer); any other Warning is a defect
      boolean injected =
          (DrainEvent.WRITE_FAILED.equals(e.getReason())
                  || Names.EVICTION_FAILED_REASON.equals(e.getReason()))
              && e.getMessage() != null
              && e.getMessage().contains("injected by the fault proxy");
      if ("Warning".equals(e.getType()) && !injected) {
        warnings.add(e.getInvolvedObject().getName() + ": " + e.getReason() + " " + e.getMessage());
      }
    }
    List<String> missing = new ArrayList<>();
    for (Node n : some) {
      Set<String> onCapi = reasons.getOrDefault(n.capi(), Set.of());
      for (String r : List.of(DrainEvent.STARTED, DrainEvent.COMPLETED, DrainEvent.POOL_DELETED)) {
        if (!onCapi.contains(r)) {
          missing.add(n.capi() + " " + r);
        }
      }
      for (String m : n.blocking()) {
        if (!reasons.getOrDefault(m, Set.of()).contains("Evicted")) {
          missing.add(m + " Evicted");
        }
      }
      if (reasons.getOrDefault(n.tolerant(), Set.of()).contains("Evicted")) {
        missing.add(n.tolerant() + " must not be Evicted");
      }
    }
    assertThat(missing).as("events of the flow").isEmpty();
    assertThat(warnings).as("Warning events").isEmpty();
    Set<String> ours = some.stream().map(Node::pool).collect(Collectors.toSet());
    List<String> cancelled =
        world.client.v1().events().inNamespace("default").list().getItems().stream()
            .filter(e -> ours.contains(e.getInvolvedObject().getName()))
            .filter(e -> DrainEvent.CANCELLED.equals(e.getReason()))
            .map(e -> e.getInvolvedObject().getName())
            .toList();
    assertThat(cancelled).as("pools with DrainCancelled").isEmpty();
  }

  private void actSafely() {
    if (!acting) {
      return;
    }
    try {
      act();
    } catch (RuntimeException e) {
      LOG.info("poollet/CAPI pass failed, retrying: {}", e.toString());
    }
  }

  /**
   * One pass. Reads CAPI Machines first, then Machines and pools, so anything seen still existing
   * existed after the hook removal seen before it.
   */
  private void act() {
    List<CapiMachine> capis =
        world.client.resources(CapiMachine.class).inNamespace(world.ns).list().getItems();
    List<Machine> machines =
        world.ironcore.resources(Machine.class).inNamespace(world.ns).list().getItems();
    Map<String, MachinePool> pools = new HashMap<>();
    for (MachinePool p : world.ironcore.resources(MachinePool.class).list().getItems()) {
      pools.put(p.getMetadata().getName(), p);
    }
    Set<String> existing = new HashSet<>();
    machines.forEach(m -> existing.add(m.getMetadata().getName()));
    for (CapiMachine c : capis) {
      Node n = byCapi.get(c.getMetadata().getName());
      if (n == null
          || c.getMetadata().getDeletionTimestamp() == null
          || hasHook(c)
          || !c.getMetadata().getFinalizers().contains(Names.CAPI_MACHINE_FINALIZER)
          || capiFinished.contains(n.capi())) {
        continue;
      }
      for (String m : n.blocking()) {
        if (existing.contains(m)) {
          violations.add("hook of " + n.capi() + " removed while " + m + " still exists");
        }
      }
      MachinePool p = pools.get(n.pool());
      if (p == null || p.getMetadata().getDeletionTimestamp() != null) {
        violations.add("pool " + n.pool() + " deleted before CAPI finished with " + n.capi());
      }
      capiFinished.add(n.capi());
      world.capiFinishes(n.capi());
    }
    Set<String> finished = Set.copyOf(capiFinished);
    for (Node n : nodes) {
      MachinePool p = pools.get(n.pool());
      if (!finished.contains(n.capi())
          && (p == null || p.getMetadata().getDeletionTimestamp() != null)) {
        violations.add("pool " + n.pool() + " deleted before CAPI finished with " + n.capi());
      }
      if (p != null && p.getStatus() != null && p.getStatus().getConditions() != null) {
        for (Condition cond : p.getStatus().getConditions()) {
          if (MaintenanceCondition.TYPE.equals(cond.getType())
              && MaintenanceCondition.STUCK_REASON.equals(cond.getReason())) {
            violations.add("pool " + n.pool() + " DrainStuck: " + cond.getMessage());
          }
        }
      }
    }
    Set<String> tolerant = nodes.stream().map(Node::tolerant).collect(Collectors.toSet());
    for (Machine m : machines) {
      String name = m.getMetadata().getName();
      if (m.getMetadata().getDeletionTimestamp() == null) {
        continue;
      }
      if (tolerant.contains(name)) {
        violations.add("tolerating Machine " + name + " evicted");
      } else if (m.getMetadata().getFinalizers().contains(Names.POOLLET_FINALIZER)) {
        world.poolletReleases(name);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    acting = false;
    actors.shutdownNow();
    actors.awaitTermination(10, TimeUnit.SECONDS);
  }
}

package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller process is killed with SIGKILL at {@value #DEFAULT_KILLS} random points of drains
 * (taint, evict, wait for the poollet, release the pre-drain hook, delete the emptied pool),
 * taint-based evictions (at once and delayed by {@code tolerationSeconds}) and restarted each time,
 * while flows of both kinds run side by side (a new one starts whenever one ends) and {@link
 * KillPointWatch} checks the invariants on every change. A kill point is either a random time after
 * the spawn (often during start-up), a random time after {@code /readyz}, or right after the
 * 1st–3rd write of the controller the watch sees (a taint, an eviction, a condition, the hook, a
 * pool deletion), when the process is most likely between a write and the next. At the end every
 * flow must have completed with each of its events recorded at least once.
 *
 * <p>The seed is printed; {@code -Dkillpoints.seed=N} repeats the same choices (flow shapes, kill
 * points), {@code -Dkillpoints.kills=N} changes the count. Timing on a loaded machine still differs
 * between runs. The restarted process runs with leader election and the same identity ({@code
 * POD_NAME}), as a container restarted in its pod does: it takes its own Lease back at once instead
 * of waiting for it to expire.
 */
class RandomKillPointsE2ETest {
  static final int DEFAULT_KILLS = 50;
  private static final int KILLS = Integer.getInteger("killpoints.kills", DEFAULT_KILLS);

  /** Flows in progress at once while the kills go on. */
  private static final int ACTIVE_FLOWS = 5;

  private ControllerWorld world;
  private KillPointWatch watch;
  private Path log;
  private volatile ControllerProcess controller;
  private final Map<String, KillFlow> byPool = new ConcurrentHashMap<>();
  private final Map<String, KillFlow> byMachine = new ConcurrentHashMap<>();
  private final List<KillFlow> flows = new CopyOnWriteArrayList<>();
  private final AtomicBoolean feeding = new AtomicBoolean(true);
  private Thread feeder;
  private FastStartJvm jvm;

  @AfterEach
  void stop() throws Exception {
    feeding.set(false);
    if (feeder != null) {
      feeder.interrupt();
      feeder.join(10_000);
    }
    if (controller != null) {
      controller.close();
    }
    if (watch != null) {
      watch.close();
    }
  }

  @Test
  void killedAtFiftyRandomPointsEveryFlowCompletesAndNoInvariantBreaks() throws Exception {
    long seed = Long.getLong("killpoints.seed", new java.security.SecureRandom().nextLong());
    System.out.printf(
        "RandomKillPointsE2ETest: seed %d, %d kills (repeat: -Dkillpoints.seed=%d)%n",
        seed, KILLS, seed);
    Random kills = new Random(seed);
    world = new ControllerWorld();
    log = Files.createDirectories(Path.of("target", "kill-points")).resolve(world.ns + ".log");
    watch = new KillPointWatch(world, byPool, byMachine, seed + 1);
    feeder = new Thread(() -> feed(new Random(seed + 2)), "flow-feeder");
    feeder.start();

    // a first process, stopped cleanly, writes the class-data archive the others start from
    jvm = FastStartJvm.prepare(log.getParent());
    startController(0, jvm.dumping());
    awaitReady(new CompletableFuture<>());
    Thread.sleep(2000);
    int exit = controller.terminate();
    note(
        "warm-up process stopped with SIGTERM: exit code %d, class-data archive %s",
        exit, jvm.archived() ? "written" : "not written (starts stay slower)");
    assertThat(exit).as("exit code after SIGTERM").isZero();

    Map<String, Integer> modes = new TreeMap<>();
    List<Long> readyMillis = new ArrayList<>();
    long began = System.nanoTime();
    for (int k = 1; k <= KILLS; k++) {
      int mode = kills.nextInt(10);
      long delay = kills.nextInt(mode < 2 ? 2500 : 1500);
      int nthWrite = 1 + kills.nextInt(3);
      CompletableFuture<String> killed = new CompletableFuture<>();
      AtomicInteger seen = new AtomicInteger();
      long spawn = System.nanoTime();
      startController(k, jvm.options());
      ControllerProcess current = controller;
      if (mode >= 5) {
        watch.onWrite(
            w -> {
              if (seen.incrementAndGet() == nthWrite) {
                current.killNow();
                killed.complete("right after write " + nthWrite + ": " + w);
              }
            });
      }
      String point;
      if (mode < 2) {
        Thread.sleep(delay);
        point =
            delay
                + " ms after the spawn"
                + (controller.probe("/readyz") == 200 ? "" : " (in start-up)");
      } else {
        long ready = awaitReady(killed);
        if (ready >= 0) {
          readyMillis.add(ready);
        }
        if (mode < 5) {
          Thread.sleep(delay);
          point = delay + " ms after ready (" + ready + " ms)";
        } else {
          String p;
          try {
            p = killed.get(8, TimeUnit.SECONDS);
          } catch (java.util.concurrent.TimeoutException e) {
            p = "no write " + nthWrite + " within 8 s of ready";
          }
          point = p;
        }
      }
      watch.onWrite(w -> {});
      controller.kill();
      modes.merge(
          mode < 2 ? "after spawn" : mode < 5 ? "after ready" : "after a write", 1, Integer::sum);
      note(
          "kill %d/%d %s (%.1f s after spawn; %d flows done)",
          k, KILLS, point, (System.nanoTime() - spawn) / 1e9, done());
    }
    long killPhase = System.nanoTime() - began;
    feeding.set(false);
    feeder.join(30_000);
    startController(KILLS + 1, jvm.options());
    awaitReady(new CompletableFuture<>());
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> flows.stream().allMatch(f -> f.state == KillFlow.State.DONE));

    List<String> violations = new ArrayList<>(watch.violations());
    violations.addAll(finalStateViolations());
    violations.addAll(lostEvents());
    note(
        "seed %d: %d kills in %.0f s (%s), spawn to ready %s ms (median), %d flows (%s), %d"
            + " controller writes seen, %d invariant violations",
        seed,
        KILLS,
        killPhase / 1e9,
        modes,
        median(readyMillis),
        flows.size(),
        flows.stream()
            .collect(Collectors.groupingBy(f -> f.kind, TreeMap::new, Collectors.counting())),
        watch.writes(),
        violations.size());
    violations.forEach(v -> note("violation: %s", v));
    assertThat(violations).as("invariant violations (seed %d)", seed).isEmpty();
    assertThat(flows.stream().map(f -> f.kind).distinct()).hasSize(2);
  }

  private void startController(int incarnation, List<String> jvmOptions) throws Exception {
    Files.writeString(
        log,
        "=== incarnation " + incarnation + " ===\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    controller =
        ControllerProcess.start(
            world.cp.kubeconfig(),
            log,
            Map.of("POD_NAME", "kill-points-controller"),
            jvmOptions,
            "--capi-machine-selector=" + KillFlow.LABEL + "=" + world.suffix,
            "--resync-period=30s",
            "--leader-elect",
            "--leader-election-namespace=" + world.ns,
            "--leader-election-id=kill-points");
  }

  /**
   * Milliseconds from now until the process answers /readyz with 200; -1 when it was killed before
   * ({@code killed} done).
   */
  private long awaitReady(CompletableFuture<String> killed) {
    long from = System.nanoTime();
    ControllerWorld.processStarts()
        .pollInterval(Duration.ofMillis(50))
        .until(() -> killed.isDone() || controller.probe("/readyz") == 200);
    return killed.isDone() ? -1 : (System.nanoTime() - from) / 1_000_000;
  }

  /** Keeps {@link #ACTIVE_FLOWS} flows going while the kills go on; starts and finishes them. */
  private void feed(Random random) {
    int n = 0;
    while (true) {
      try {
        for (KillFlow f : flows) {
          advance(f);
        }
        boolean more = feeding.get();
        if (!more && flows.stream().allMatch(f -> f.state != KillFlow.State.CREATED)) {
          if (flows.stream().allMatch(f -> f.state == KillFlow.State.DONE)) {
            return;
          }
        }
        long active = flows.stream().filter(f -> f.state != KillFlow.State.DONE).count();
        if (more && active < ACTIVE_FLOWS) {
          n++;
          KillFlow f =
              random.nextInt(5) < 3
                  ? KillFlow.drain(world, "d" + n, random)
                  : KillFlow.eviction(world, "e" + n, random);
          byPool.put(f.pool, f);
          f.evicted.forEach(m -> byMachine.put(m, f));
          f.tolerant.forEach(m -> byMachine.put(m, f));
          flows.add(f);
        }
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        watch.violation("flow feeder: " + e);
      }
    }
  }

  private void advance(KillFlow f) {
    switch (f.state) {
      case CREATED -> {
        if (f.kind == KillFlow.Kind.EVICTION) {
          f.start(world);
        } else {
          var capi = watch.capiMachine(f.capiMachine);
          if (capi != null
              && capi.getMetadata()
                  .getFinalizers()
                  .contains(dev.ironcore.maintenance.api.Names.CLEANUP_FINALIZER)
              && ControllerWorld.hasHook(capi)) {
            f.start(world);
          }
        }
      }
      case STARTED -> {
        boolean evictedGone = f.evicted.stream().allMatch(m -> watch.machine(m) == null);
        boolean drainDone =
            f.kind == KillFlow.Kind.EVICTION
                || (watch.capiMachine(f.capiMachine) == null && watch.pool(f.pool) == null);
        if (evictedGone && drainDone) {
          f.doneNanos = System.nanoTime();
          f.state = KillFlow.State.DONE;
        }
      }
      case DONE -> {}
    }
  }

  private int done() {
    return (int) flows.stream().filter(f -> f.state == KillFlow.State.DONE).count();
  }

  /** Tolerating Machines alive, eviction pools still there. */
  private List<String> finalStateViolations() {
    List<String> v = new ArrayList<>();
    for (KillFlow f : flows) {
      for (String m : f.tolerant) {
        var live = world.machine(m);
        if (live == null || live.getMetadata().getDeletionTimestamp() != null) {
          v.add("tolerating Machine " + m + " is gone or deleting at the end (" + f + ")");
        }
      }
      if (f.kind == KillFlow.Kind.EVICTION && world.pool(f.pool) == null) {
        v.add("pool " + f.pool + " of an eviction flow is gone");
      }
    }
    return v;
  }

  /** Each event of each flow recorded at least once. */
  private List<String> lostEvents() {
    Map<String, Set<String>> reasons = new HashMap<>();
    for (Event e : world.client.v1().events().inNamespace(world.ns).list().getItems()) {
      reasons
          .computeIfAbsent(e.getInvolvedObject().getName(), k -> ConcurrentHashMap.newKeySet())
          .add(e.getReason());
    }
    List<String> v = new ArrayList<>();
    for (KillFlow f : flows) {
      f.expectedEvents()
          .forEach(
              (object, expected) -> {
                for (String reason : expected) {
                  if (!reasons.getOrDefault(object, Set.of()).contains(reason)) {
                    v.add("event " + reason + " on " + object + " lost (" + f + ")");
                  }
                }
              });
    }
    return v;
  }

  private static Long median(List<Long> values) {
    if (values.isEmpty()) {
      return null;
    }
    List<Long> sorted = values.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  private static void note(String format, Object... args) {
    System.out.printf("RandomKillPointsE2ETest: " + format + "%n", args);
  }
}

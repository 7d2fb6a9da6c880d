package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MachinePool a Machine's write binds it to, for its eviction warning ({@link
 * BindingWarningHandler}): one GET (cluster-scoped, the client's 2 s limit), kept for {@link #TTL}
 * with only its name and {@code NoExecute} taints (a few hundred bytes a pool), failures too. A
 * Machine's admission must never wait on a slow API server in numbers (IronCore's scheduler binds
 * many Machines at once, and the server has 16 threads for every webhook): at most {@link #AT_ONCE}
 * lookups wait for the API server; a Machine that finds them all busy gets no warning rather than a
 * wait. After a failed discovery, or a 403 (RBAC without {@code get} on machinepools, e.g. a new
 * image with an older ClusterRole), nothing is asked for {@link #PAUSE} (logged once); other
 * failures are logged at WARN at most once a minute.
 */
final class PoolLookups {
  private static final Logger LOG = LoggerFactory.getLogger(PoolLookups.class);

  /**
   * How long a pool read (or a failure to read it) is used: 1 s, a taint is seen at most that late
   * (with 5 s, a Machine bound 4 s after the drain tainted its pool got no warning: the pool had
   * been read for the Machine before it; make run), and a scheduler binding many Machines to one
   * pool costs a GET a second.
   */
  static final Duration TTL = Duration.ofSeconds(1);

  /** Lookups that may wait for the API server at once. */
  static final int AT_ONCE = 2;

  /** How long no pool is asked for after a failed discovery or a 403. */
  static final Duration PAUSE = Duration.ofMinutes(1);

  private static final int MAX_REMEMBERED = 10_000;
  private static final Duration WARN_EVERY = Duration.ofMinutes(1);

  /** What was read at {@code readAt} ({@link System#nanoTime()}); empty: none or no answer. */
  private record Read(Optional<MachinePool> pool, long readAt) {}

  private final KubernetesClient client;
  private final Supplier<ComputeApi> api;
  private final ConcurrentHashMap<String, Read> read = new ConcurrentHashMap<>();
  private final Semaphore waiting = new Semaphore(AT_ONCE);
  private volatile long pausedUntil = System.nanoTime();
  private volatile long warnedAt = System.nanoTime() - WARN_EVERY.toNanos();

  /**
   * @param client the API server's client (2 s per request, no retries)
   * @param api the versions it serves; null while discovery has no answer
   */
  PoolLookups(KubernetesClient client, Supplier<ComputeApi> api) {
    this.client = client;
    this.api = api;
  }

  /**
   * @return the pool named {@code name} with its {@code NoExecute} taints only; empty when there is
   *     none, it could not be read within the client's limit, or {@link #AT_ONCE} lookups wait
   *     already
   */
  Optional<MachinePool> pool(String name) {
    long now = System.nanoTime();
    Read known = read.get(name);
    if (known != null && now - known.readAt() < TTL.toNanos()) {
      return known.pool();
    }
    if (now - pausedUntil < 0 || !waiting.tryAcquire()) {
      return Optional.empty();
    }
    try {
      ComputeApi version = api.get();
      if (version == null) {
        pause("API discovery has no answer");
        return Optional.empty();
      }
      Optional<MachinePool> pool;
      try {
        pool =
            Optional.ofNullable(client.resources(version.poolClass()).withName(name).get())
                .map(PoolLookups::noExecuteOnly);
      } catch (KubernetesClientException e) {
        if (e.getCode() == 403) {
          pause(LiveBoundMachines.describe(e) + " (grant get on machinepools: manifests/rbac)");
          return Optional.empty();
        }
        warn(name, e);
        pool = Optional.empty();
      } catch (RuntimeException e) {
        warn(name, e);
        pool = Optional.empty();
      }
      remember(name, new Read(pool, now));
      return pool;
    } finally {
      waiting.release();
    }
  }

  private void remember(String name, Read r) {
    if (read.size() >= MAX_REMEMBERED) {
      long now = System.nanoTime();
      read.values().removeIf(old -> now - old.readAt() >= TTL.toNanos());
      if (read.size() >= MAX_REMEMBERED) {
        read.clear(); // bounded: at worst one GET more per pool
      }
    }
    read.put(name, r);
  }

  private void pause(String why) {
    pausedUntil = System.nanoTime() + PAUSE.toNanos();
    LOG.warn("no eviction warnings on Machines' bindings for {} s: {}", PAUSE.toSeconds(), why);
  }

  private void warn(String name, RuntimeException e) {
    long now = System.nanoTime();
    if (now - warnedAt >= WARN_EVERY.toNanos()) {
      warnedAt = now;
      LOG.warn(
          "no eviction warning for a Machine bound to pool {}: reading it failed: {} (said at most"
              + " once a minute)",
          name,
          LiveBoundMachines.describe(e));
    }
  }

  /** The pool's name and {@code NoExecute} taints: all a binding's warning reads. */
  static MachinePool noExecuteOnly(MachinePool pool) {
    MachinePool kept = new MachinePool();
    kept.setApiVersion(pool.getApiVersion());
    kept.setKind(pool.getKind());
    kept.setMetadata(
        new ObjectMetaBuilder()
            .withName(pool.getMetadata() == null ? null : pool.getMetadata().getName())
            .build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setTaints(
        pool.getSpec() == null || pool.getSpec().getTaints() == null
            ? java.util.List.of()
            : pool.getSpec().getTaints().stream()
                .filter(t -> t != null && TaintEffect.NO_EXECUTE.equals(t.getEffect()))
                .toList());
    kept.setSpec(spec);
    return kept;
  }
}

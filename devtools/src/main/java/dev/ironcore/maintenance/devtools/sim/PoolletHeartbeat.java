package dev.ironcore.maintenance.devtools.sim;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.PoolConditionWriter;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LOCAL USE ONLY (part of {@code --simulate-poollet}). Posts the heartbeat a machinepoollet posts
 * for its pool, for every MachinePool labelled {@link #LABEL}{@code =true} (the demo's pools; a
 * pool a user creates gets none, so the health loop marks it Ready=Unknown): every renew interval
 * it renews the pool's Lease in {@code ironcore-machinepool-lease} (named like the pool, holder
 * {@code <pool>_<uuid>}, {@code leaseDurationSeconds} the lease duration) and keeps the pool's
 * {@code Ready} condition {@code True} (written only when it is not).
 */
public final class PoolletHeartbeat implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PoolletHeartbeat.class);

  /** Label selecting the pools that get a heartbeat (value {@code true}). */
  public static final String LABEL = "simulator.ironcore.dev/poollet-heartbeat";

  /** Reason of the Ready=True condition the simulator writes. */
  public static final String READY_REASON = "SimulatedPoolletReady";

  private final KubernetesClient client;
  private final Duration leaseDuration;
  private final Duration renewInterval;
  private final PoolConditionWriter conditions;
  private final Map<String, String> holders = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "poollet-heartbeat");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param leaseDuration written as the Lease's {@code leaseDurationSeconds} (40 s, as IronCore's)
   * @param renewInterval how often Leases are renewed and Ready checked (10 s)
   */
  public PoolletHeartbeat(KubernetesClient client, Duration leaseDuration, Duration renewInterval) {
    if (renewInterval.isZero() || renewInterval.isNegative()) {
      throw new IllegalArgumentException("renew interval must be positive, got " + renewInterval);
    }
    this.client = client;
    this.leaseDuration = leaseDuration;
    this.renewInterval = renewInterval;
    this.conditions = new PoolConditionWriter(client, Clock.systemUTC());
  }

  public void start() {
    timer.scheduleWithFixedDelay(this::beat, 0, renewInterval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One round over every labelled pool; failures are logged and retried next round. */
  void beat() {
    try {
      var pools = client.resources(MachinePool.class).withLabel(LABEL, "true").list().getItems();
      holders.keySet().retainAll(pools.stream().map(p -> p.getMetadata().getName()).toList());
      for (MachinePool pool : pools) {
        if (pool.getMetadata().getDeletionTimestamp() == null) {
          beat(pool.getMetadata().getName());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("poollet heartbeat: {} (retrying in {} ms)", e.toString(), renewInterval.toMillis());
    }
  }

  private void beat(String pool) {
    String holder = holders.computeIfAbsent(pool, p -> p + "_" + UUID.randomUUID());
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    var leases = client.leases().inNamespace(Names.LEASE_NAMESPACE);
    Lease lease = leases.withName(pool).get();
    int seconds = (int) leaseDuration.toSeconds();
    if (lease == null) {
      leases
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName(pool)
                  .withNamespace(Names.LEASE_NAMESPACE)
                  .endMetadata()
                  .withNewSpec()
                  .withHolderIdentity(holder)
                  .withLeaseDurationSeconds(seconds)
                  .withAcquireTime(now)
                  .withRenewTime(now)
                  .endSpec()
                  .build())
          .create();
      LOG.info("poollet heartbeat: pool {}: Lease created (holder {})", pool, holder);
    } else {
      leases
          .withName(pool)
          .edit(
              l -> {
                l.getSpec().setHolderIdentity(holder);
                l.getSpec().setLeaseDurationSeconds(seconds);
                l.getSpec().setRenewTime(now);
                return l;
              });
    }
    if (conditions
        .set(
            pool,
            Names.READY_CONDITION,
            "True",
            READY_REASON,
            "local poollet simulator posts status")
        .written()) {
      LOG.info("poollet heartbeat: pool {}: Ready=True", pool);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

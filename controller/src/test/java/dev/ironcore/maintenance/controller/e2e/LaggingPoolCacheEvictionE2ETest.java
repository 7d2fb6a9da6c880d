package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.controller.ClusterCache;
import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.controller.EventRecorder;
import dev.ironcore.maintenance.controller.eviction.EvictionReconciler;
import dev.ironcore.maintenance.controller.metrics.ControllerMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The eviction's DELETE cannot be undone, so it is decided on the pool as the API server has it,
 * not on a pool cache that lags (here: its watch stopped) behind an operator who removed the taint
 * (code review, session 50: the cached taint evicted the Machine).
 */
class LaggingPoolCacheEvictionE2ETest {
  private final ControllerWorld world = new ControllerWorld();

  @Test
  void aTaintRemovedWhileThePoolCacheLagsEvictsNothingAndOneAddedAgainEvicts() throws Exception {
    String pool = world.poolName("lagging");
    world.createPool(pool, List.of(), new Taint(Names.MAINTENANCE_TAINT_KEY, null, "NoExecute"));
    ComputeApi api = ComputeApi.of(ComputeApi.served(world.ironcore));
    try (ClusterCache cache =
            new ClusterCache(Clusters.single(world.client), Duration.ofMinutes(10), api);
        EventRecorder events = new EventRecorder(world.client, Clock.systemUTC())) {
      cache.start(Duration.ofSeconds(30));
      eventually().until(() -> cache.pool(pool) != null);
      // the pool cache stops following the API server
      cache.informers().stream()
          .filter(i -> i.resource().equals("machinepools"))
          .findFirst()
          .orElseThrow()
          .close();
      world.kubectlPatchPool(pool, "[{\"op\":\"remove\",\"path\":\"/spec/taints\"}]");
      world.createMachine("vm-1", pool);
      String key = world.ns + "/vm-1";
      eventually().until(() -> cache.machine(key) != null);
      assertThat(cache.pool(pool).getSpec().getTaints()).as("the cache lags").hasSize(1);

      EvictionReconciler eviction =
          new EvictionReconciler(
              world.ironcore,
              cache,
              events,
              new ControllerMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)),
              Clock.systemUTC(),
              api.delayedEviction());
      eviction.reconcile(key);
      assertThat(world.machine("vm-1").getMetadata().getDeletionTimestamp())
          .as("not evicted on the cached taint")
          .isNull();

      world.kubectlPatchPool(
          pool,
          "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\""
              + Names.MAINTENANCE_TAINT_KEY
              + "\",\"effect\":\"NoExecute\"}]}]");
      eviction.reconcile(key);
      assertThat(world.machine("vm-1").getMetadata().getDeletionTimestamp())
          .as("evicted on the taint the API server has")
          .isNotNull();
    }
  }
}

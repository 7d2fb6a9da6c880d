package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.cache.CacheTrim;
import dev.ironcore.maintenance.api.client.RefusedRequest;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.Machine;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BoundMachines} from a fabric8 informer on all IronCore Machines (list and watch only; see
 * the webhook's ClusterRole in {@code manifests/rbac}), indexed by {@code
 * spec.machinePoolRef.name}, listed by one streaming watch (in pages of {@value #LIST_LIMIT} where
 * the API server does not serve it). Starting never waits: until the informer has listed once (or
 * forever, without API access, while it keeps retrying in the background) it knows nothing, so no
 * warnings.
 *
 * <p>The cache keeps of each Machine only what the warning reads ({@link
 * CacheTrim#machine(Machine)}): its metadata without managed fields and annotations, {@code
 * spec.machinePoolRef} and {@code spec.tolerations}.
 */
public final class MachineCache implements BoundMachines, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MachineCache.class);
  private static final String BY_POOL = "byPool";

  /**
   * Machines per LIST page while the informer (re)lists, where the API server does not stream lists
   * ({@link dev.ironcore.maintenance.api.cache.StreamedList}).
   */
  static final long LIST_LIMIT = 500;

  private final SharedIndexInformer<Machine> informer;

  /**
   * @param machineClass the version Machines are listed in: {@link ComputeApi#machineClass()} of
   *     what the API server serves ({@link #servedApi}); in v1alpha1 a Machine's {@code
   *     tolerationSeconds} are only in an annotation the cache drops, so delayed evictions are then
   *     not told apart
   * @param resync how often cached Machines are replayed (nothing listens; 0 = never)
   */
  public MachineCache(
      KubernetesClient client, Class<? extends Machine> machineClass, Duration resync) {
    informer = CacheTrim.machineInformer(client, machineClass, LIST_LIMIT, resync.toMillis());
    informer.addIndexers(
        Map.of(BY_POOL, m -> m.boundPoolName() == null ? List.of() : List.of(m.boundPoolName())));
    informer.exceptionHandler(
        (started, t) -> {
          LOG.debug("machine cache: {} (retrying)", t.toString());
          return true;
        });
  }

  /**
   * The version to list Machines in: v1alpha2 where the API server serves it (our CRDs), else
   * v1alpha1 (a real IronCore API server, or discovery failed: logged).
   *
   * @param client the cache's client; one discovery request ({@code /apis/compute.ironcore.dev})
   */
  public static ComputeApi servedApi(KubernetesClient client) {
    try {
      ComputeApi api = ComputeApi.of(ComputeApi.served(client));
      LOG.info("machine cache: reading Machines as {}", api.apiVersion());
      return api;
    } catch (RuntimeException e) {
      LOG.warn(
          "machine cache: API discovery failed ({}); reading Machines as v1alpha1",
          e instanceof io.fabric8.kubernetes.client.KubernetesClientException k
              ? RefusedRequest.describe(k).orElse(e.toString())
              : e.toString());
      return ComputeApi.V1ALPHA1;
    }
  }

  /**
   * The client this cache is meant to run on: fabric8 on the JDK's own HTTP client ({@code
   * java.net.http}), which loads far fewer classes and keeps no buffer pools of its own, unlike the
   * default Vert.x/Netty transport; one list/watch needs no more.
   *
   * @param config where and as whom to connect; null = fabric8's auto-configuration (in-cluster
   *     service account, or {@code KUBECONFIG}/{@code ~/.kube/config})
   */
  public static KubernetesClient client(Config config) {
    KubernetesClientBuilder builder = dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder();
    return (config == null ? builder : builder.withConfig(config)).build();
  }

  /** Starts listing and watching in the background; returns at once. */
  public MachineCache start() {
    informer
        .start()
        .whenComplete(
            (ok, e) -> {
              if (e == null) {
                LOG.info("machine cache synced: eviction warnings on");
              } else {
                LOG.warn(
                    "machine cache not synced ({}): no eviction warnings until it is",
                    e.toString());
              }
            });
    return this;
  }

  /** True once the informer has listed Machines at least once. */
  public boolean synced() {
    return informer.hasSynced();
  }

  @Override
  public Optional<List<Machine>> boundTo(String pool) {
    if (!informer.hasSynced()) {
      return Optional.empty();
    }
    return Optional.of(informer.getIndexer().byIndex(BY_POOL, pool));
  }

  @Override
  public void close() {
    informer.close();
  }
}

package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.client.RefusedRequest;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.Machine;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BoundMachines} read from the API server when asked: one LIST of the Machines in every
 * namespace with the field selector {@value #POOL_FIELD} (IronCore's selector for the pool binding;
 * our CRDs declare it a selectable field of v1alpha2), answering only that pool's Machines. Asked
 * only for a MachinePool write that adds a {@code NoExecute} taint ({@link
 * EvictionWarningHandler}), so its cost does not grow with the cluster: the informer cache of every
 * Machine it replaces held about 3 KB of heap per Machine, and the shipped 64 MiB heap ran out at
 * 20,000 Machines ({@code OutOfMemoryError}, the server exited; fresh eyes measured 10,000 Machines
 * at 160 MiB peak RSS).
 *
 * <p>The LIST runs on a client with a {@link #TIMEOUT_MILLIS} request timeout and no retries, well
 * inside the webhook's 5 s {@code timeoutSeconds}; a failure (no answer, 403, anything) means no
 * warning for that write, logged at WARN. An API server that refuses the selector (400, CRDs
 * without {@code selectableFields}, or v1alpha1 only) gives no warnings for the life of the process
 * (logged once): listing every Machine inside an admission request is not an option.
 */
public final class LiveBoundMachines implements BoundMachines {
  private static final Logger LOG = LoggerFactory.getLogger(LiveBoundMachines.class);

  /** IronCore's field selector for the pool binding. */
  static final String POOL_FIELD = "spec.machinePoolRef.name";

  /** How long one LIST may take, in milliseconds. */
  public static final int TIMEOUT_MILLIS = 2_000;

  private final KubernetesClient client;
  private final Class<? extends Machine> type;
  private volatile boolean selectorRefused;

  /**
   * @param client the IronCore API, built by {@link #client}
   * @param type the version Machines are read in ({@link ComputeApi#machineClass()} of {@link
   *     #servedApi}); in v1alpha1 the selector is not served by our CRDs
   */
  public LiveBoundMachines(KubernetesClient client, Class<? extends Machine> type) {
    this.client = client;
    this.type = type;
  }

  /**
   * A client for these reads: fabric8 on the JDK's HTTP client ({@link
   * dev.ironcore.maintenance.api.json.JsonMappers#clientBuilder()}), {@link #TIMEOUT_MILLIS} per
   * request, no retries.
   *
   * @param config where and as whom to connect; null = fabric8's auto-configuration (in-cluster
   *     service account, or {@code KUBECONFIG}/{@code ~/.kube/config})
   */
  public static KubernetesClient client(Config config) {
    Config c = config == null ? Config.autoConfigure(null) : config;
    c.setRequestTimeout(TIMEOUT_MILLIS);
    c.setConnectionTimeout(TIMEOUT_MILLIS);
    c.setRequestRetryBackoffLimit(0);
    KubernetesClientBuilder builder = dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder();
    return builder.withConfig(c).build();
  }

  /**
   * The version to read Machines in: v1alpha2 where the API server serves it (our CRDs), else
   * v1alpha1 (a real IronCore API server, or discovery failed: logged).
   *
   * @param client one discovery request ({@code /apis/compute.ironcore.dev})
   */
  public static ComputeApi servedApi(KubernetesClient client) {
    try {
      ComputeApi api = ComputeApi.of(ComputeApi.served(client));
      LOG.info(
          "eviction warnings on: a pool's Machines are listed as {} when a write adds a NoExecute"
              + " taint",
          api.apiVersion());
      return api;
    } catch (RuntimeException e) {
      LOG.warn(
          "eviction warnings: API discovery failed ({}); reading Machines as v1alpha1",
          e instanceof KubernetesClientException k
              ? RefusedRequest.describe(k).orElse(e.toString())
              : e.toString());
      return ComputeApi.V1ALPHA1;
    }
  }

  @Override
  public Optional<List<Machine>> boundTo(String pool) {
    if (selectorRefused) {
      return Optional.empty();
    }
    try {
      List<Machine> bound =
          client
              .resources(type)
              .inAnyNamespace()
              .withField(POOL_FIELD, pool)
              .list()
              .getItems()
              .stream()
              .filter(m -> pool.equals(m.boundPoolName()))
              .map(Machine.class::cast)
              .toList();
      return Optional.of(bound);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 400) {
        selectorRefused = true;
        LOG.warn(
            "no eviction warnings: the API server refuses field selector {} on Machines ({})",
            POOL_FIELD,
            e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
      } else {
        LOG.warn(
            "no eviction warning for pool {}: listing its Machines failed: {}",
            pool,
            RefusedRequest.describe(e).orElse(String.valueOf(e.getMessage())));
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn(
          "no eviction warning for pool {}: listing its Machines failed: {}", pool, e.toString());
      return Optional.empty();
    }
  }
}

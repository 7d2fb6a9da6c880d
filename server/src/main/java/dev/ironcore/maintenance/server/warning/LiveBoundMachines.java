package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.client.RefusedRequest;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
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
 * our CRDs declare it a selectable field of both versions), answering only that pool's Machines.
 * Asked only for a MachinePool write that adds a {@code NoExecute} taint ({@link
 * EvictionWarningHandler}; a Machine's binding reads its pool instead, {@link PoolLookups}), so its
 * cost does not grow with the cluster: the informer cache of every Machine it replaces held about 3
 * KB of heap per Machine, and the shipped 64 MiB heap ran out at 20,000 Machines ({@code
 * OutOfMemoryError}, the server exited; 10,000 Machines: 160 MiB peak RSS).
 *
 * <p>The LIST runs on a client with a {@link #TIMEOUT_MILLIS} request timeout and no retries, well
 * inside the webhook's 5 s {@code timeoutSeconds}; a failure (no answer, 403, anything) means no
 * warning for that write, logged at WARN. An API server that refuses the selector (400: CRDs
 * without {@code selectableFields}) gives no warnings for the life of the process (logged once):
 * listing every Machine inside an admission request is not an option. Which version to read
 * Machines in is asked at start and, until the API server has answered, again at each lookup.
 */
public final class LiveBoundMachines implements BoundMachines {
  private static final Logger LOG = LoggerFactory.getLogger(LiveBoundMachines.class);

  /** IronCore's field selector for the pool binding. */
  static final String POOL_FIELD = "spec.machinePoolRef.name";

  /** How long one LIST may take, in milliseconds. */
  public static final int TIMEOUT_MILLIS = 2_000;

  private final KubernetesClient client;
  private volatile ComputeApi api;

  private final PoolLookups pools;
  private volatile boolean selectorRefused;

  /**
   * Asks the API server which versions of Machines it serves at once ({@link #servedApi}, logged),
   * and again at each later lookup until it has answered: a server started while the API server did
   * not answer reads Machines in the right version once it does (fresh eyes: it fell back to
   * v1alpha1, where our CRDs serve no field selector, and warned no more until restarted).
   *
   * @param client the IronCore API, built by {@link #client}
   */
  public LiveBoundMachines(KubernetesClient client) {
    this.client = client;
    this.pools = new PoolLookups(client, this::discover);
    discover();
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
   * v1alpha1 (a real IronCore API server); logged either way.
   *
   * @param client one discovery request ({@code /apis/compute.ironcore.dev})
   * @return empty when the API server did not say (logged at WARN; asked again later)
   */
  public static Optional<ComputeApi> servedApi(KubernetesClient client) {
    try {
      ComputeApi api = ComputeApi.of(ComputeApi.served(client));
      LOG.info(
          "eviction warnings on: a pool's Machines are listed as {} when a write adds a NoExecute"
              + " taint",
          api.apiVersion());
      return Optional.of(api);
    } catch (RuntimeException e) {
      LOG.warn(
          "no eviction warnings yet: API discovery failed ({}); asked again at the next MachinePool"
              + " write that adds a NoExecute taint or Machine binding (bindings: at most once a"
              + " minute)",
          describe(e));
      return Optional.empty();
    }
  }

  /**
   * {@code value} as a field selector value (Kubernetes {@code fields.EscapeValue}: a backslash,
   * comma or equals sign preceded by a backslash), so that a pool name the API server would never
   * accept (a review sent to the webhook port directly) selects nothing instead of failing.
   */
  static String escapeFieldValue(String value) {
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=");
  }

  /**
   * What went wrong, in a phrase: the API server's answer when there was one (e.g. {@code answered
   * 403 Forbidden: ...}), else the innermost cause (e.g. {@code HttpTimeoutException: request timed
   * out}) rather than fabric8's {@code An error has occurred.}
   */
  static String describe(Throwable e) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      return RefusedRequest.describe(k)
          .orElse(
              "answered "
                  + k.getCode()
                  + (k.getStatus() == null ? "" : ": " + k.getStatus().getMessage()));
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  /**
   * The version to read Machines and pools in, asked for while not known; null when not answered.
   */
  private ComputeApi discover() {
    ComputeApi known = api;
    if (known == null) {
      Optional<ComputeApi> served = servedApi(client);
      if (served.isPresent()) {
        known = served.get();
        api = known;
      }
    }
    return known;
  }

  /** One GET of the pool, kept a few seconds, never many waiting at once ({@link PoolLookups}). */
  @Override
  public Optional<MachinePool> pool(String name) {
    return pools.pool(name);
  }

  /**
   * False on an API server without v1alpha2 (a real IronCore): the eviction ignores the seconds.
   */
  @Override
  public boolean tolerationSecondsCount() {
    ComputeApi known = api;
    return known == null || known.delayedEviction();
  }

  @Override
  public Optional<List<Machine>> boundTo(String pool) {
    if (selectorRefused) {
      return Optional.empty();
    }
    ComputeApi version = discover();
    if (version == null) {
      return Optional.empty();
    }
    try {
      List<Machine> bound =
          client
              .resources(version.machineClass())
              .inAnyNamespace()
              .withField(POOL_FIELD, escapeFieldValue(pool))
              .list()
              .getItems()
              .stream()
              .filter(m -> pool.equals(m.boundPoolName()))
              .map(Machine.class::cast)
              .toList();
      return Optional.of(bound);
    } catch (KubernetesClientException e) {
      String message = e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage();
      // only an API server without the CRD's selectable field turns the warnings off; any other
      // 400 is this request's (fresh eyes: a review sent to the webhook port with the pool name
      // "a=b" turned them off for good)
      if (e.getCode() == 400 && message != null && message.contains("field label not supported")) {
        selectorRefused = true;
        LOG.warn(
            "no eviction warnings: the API server refuses field selector {} on Machines ({})",
            POOL_FIELD,
            message);
      } else {
        LOG.warn(
            "no eviction warning for pool {}: listing its Machines failed: {}", pool, describe(e));
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn(
          "no eviction warning for pool {}: listing its Machines failed: {}", pool, describe(e));
      return Optional.empty();
    }
  }
}

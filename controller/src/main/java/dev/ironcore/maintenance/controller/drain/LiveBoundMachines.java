package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.compute.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Machines bound to a pool, read from the API server (not the cache): the drain's last check
 * before it releases the pre-drain hook. It asks with the field selector {@value #POOL_FIELD}
 * (which IronCore's API server serves, and our CRDs declare as a selectable field of both
 * versions): one LIST answering only that pool's Machines. An API server that refuses the selector
 * (400 Bad Request: "field label not supported", e.g. CRDs installed without {@code
 * selectableFields}) is asked for every Machine instead, in pages of {@link PagedList#PAGE},
 * filtered here; the refusal is remembered for the life of the process. With 10,000 Machines the
 * paged read was 20 LISTs (each page converted by the conversion webhook when read in v1alpha1) at
 * the end of every drain ({@code make bench}).
 */
public final class LiveBoundMachines {
  private static final Logger LOG = LoggerFactory.getLogger(LiveBoundMachines.class);

  /**
   * IronCore's field selector for the pool binding (IronCore {@code
   * MachineMachinePoolRefNameField}).
   */
  static final String POOL_FIELD = "spec.machinePoolRef.name";

  private final KubernetesClient client;
  private final Class<? extends Machine> type;
  private volatile boolean fieldSelectorRefused;

  /**
   * @param client the IronCore API
   * @param type the API version to read Machines in ({@code MachineV1alpha2} where served: its
   *     reads need no conversion)
   */
  public LiveBoundMachines(KubernetesClient client, Class<? extends Machine> type) {
    this.client = client;
    this.type = type;
  }

  /**
   * @return the Machines whose {@code spec.machinePoolRef.name} is {@code pool}, in every namespace
   * @throws KubernetesClientException when the API server cannot be read
   */
  public List<Machine> boundTo(String pool) {
    if (!fieldSelectorRefused) {
      try {
        return bound(
            pool,
            client.resources(type).inAnyNamespace().withField(POOL_FIELD, pool).list().getItems());
      } catch (KubernetesClientException e) {
        if (e.getCode() != 400) {
          throw e;
        }
        fieldSelectorRefused = true;
        LOG.info(
            "the API server refuses field selector {} on Machines ({}): drains check a pool's"
                + " Machines by listing all Machines in pages of {}",
            POOL_FIELD,
            e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage(),
            PagedList.PAGE);
      }
    }
    return bound(pool, PagedList.all(client.resources(type).inAnyNamespace()));
  }

  /** Whether the last read used the field selector (false once the API server refused it). */
  public boolean usesFieldSelector() {
    return !fieldSelectorRefused;
  }

  private static List<Machine> bound(String pool, List<? extends Machine> machines) {
    return machines.stream()
        .filter(m -> pool.equals(m.boundPoolName()))
        .map(Machine.class::cast)
        .toList();
  }
}

package dev.ironcore.maintenance.server.warning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Adds {@link EvictionWarnings} to what another Machine handler allowed when the write binds the
 * Machine to a pool (a CREATE with {@code spec.machinePoolRef}, or an UPDATE that sets it) whose
 * {@code NoExecute} taints it does not tolerate, or tolerates for its {@code tolerationSeconds}
 * only: IronCore's eviction (IEP-21) deletes it right after, e.g. {@code MachinePool pool-c: this
 * Machine does not tolerate upgrade:NoExecute and will be evicted}. kubectl prints it as {@code
 * Warning: ...}. Never denies: the pool comes from {@link BoundMachines#pool} (read from the API
 * server, reused for a second, {@link PoolLookups}), and when it is not known, or anything goes
 * wrong, the inner response is returned unchanged. The Machine is read only when the pool carries a
 * {@code NoExecute} taint.
 */
public final class BindingWarningHandler implements AdmissionHandler {
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  private final AdmissionHandler inner;
  private final BoundMachines cluster;
  private final Clock clock;

  /**
   * @param inner the Machine handler whose decision stands (e.g. toleration validation)
   * @param cluster where the pool is looked up ({@link BoundMachines#pool})
   * @param clock the time a taint's {@code timeAdded} is compared with
   */
  public BindingWarningHandler(AdmissionHandler inner, BoundMachines cluster, Clock clock) {
    this.inner = inner;
    this.cluster = cluster;
    this.clock = clock;
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    return WarningsAdded.to(inner.handle(request), request, () -> warnings(request));
  }

  private List<String> warnings(AdmissionRequest request) {
    String pool = poolName(request.object());
    if (pool.isEmpty() || pool.equals(poolName(request.oldObject()))) {
      return List.of(); // not bound, or bound before this write (the binding cannot change)
    }
    Optional<MachinePool> found = cluster.pool(pool);
    if (found.isEmpty() || !EvictionWarnings.addsNoExecute(null, found.get())) {
      return List.of();
    }
    Machine machine = machine(request.object());
    if (!cluster.tolerationSecondsCount() && machine.getSpec() != null) {
      // v1alpha1 only (a real IronCore): its eviction tolerates any matching toleration for good
      List<dev.ironcore.maintenance.api.compute.Toleration> tolerations =
          machine.getSpec().getTolerations();
      if (tolerations != null) {
        tolerations.forEach(t -> t.setTolerationSeconds(null));
      }
    }
    return EvictionWarnings.of(null, found.get(), List.of(machine), clock.instant()).stream()
        .map(
            w ->
                "MachinePool " + pool + ": " + w.replaceFirst("^1 bound Machine ", "this Machine "))
        .toList();
  }

  private static String poolName(JsonNode machine) {
    if (machine == null || machine.isNull()) {
      return "";
    }
    String name = KubeObjects.textAt(machine, "/spec/machinePoolRef/name");
    return name == null ? "" : name;
  }

  /**
   * The Machine as v1alpha2, where {@code tolerationSeconds} stand in its spec (a v1alpha1 Machine
   * keeps them in an annotation, which the conversion reads, as the API server's would).
   */
  private static Machine machine(JsonNode json) {
    String v1alpha2 = Names.COMPUTE_GROUP + "/v1alpha2";
    JsonNode converted;
    try {
      converted =
          v1alpha2.equals(KubeObjects.textAt(json, "/apiVersion"))
              ? json
              : dev.ironcore.maintenance.server.conversion.ComputeConverter.convert(json, v1alpha2);
    } catch (dev.ironcore.maintenance.server.conversion.ConversionException e) {
      throw new IllegalArgumentException(e.getMessage(), e); // no warning
    }
    return MAPPER.convertValue(converted, MachineV1alpha2.class);
  }
}

package dev.ironcore.maintenance.server.warning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Adds {@link EvictionWarnings} to what another MachinePool handler allowed (kubectl prints them as
 * {@code Warning: ...}). Never denies: the bound Machines come from {@link BoundMachines} (read
 * from the API server, {@link LiveBoundMachines}, only for a write that adds a {@code NoExecute}
 * taint), and when it knows nothing, or anything goes wrong reading the request or the Machines (a
 * {@link RuntimeException}, or a {@link LinkageError} logged at ERROR), the inner response is
 * returned unchanged.
 */
public final class EvictionWarningHandler implements AdmissionHandler {
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  private final AdmissionHandler inner;
  private final BoundMachines boundMachines;
  private final Clock clock;

  /**
   * @param inner the MachinePool handler whose decision stands (e.g. taint validation)
   * @param boundMachines where the pool's bound Machines are looked up
   */
  public EvictionWarningHandler(AdmissionHandler inner, BoundMachines boundMachines) {
    this(inner, boundMachines, Clock.systemUTC());
  }

  /**
   * As {@link #EvictionWarningHandler(AdmissionHandler, BoundMachines)}, with the clock a taint's
   * {@code timeAdded} is compared with.
   */
  public EvictionWarningHandler(AdmissionHandler inner, BoundMachines boundMachines, Clock clock) {
    this.inner = inner;
    this.boundMachines = boundMachines;
    this.clock = clock;
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    return WarningsAdded.to(inner.handle(request), request, () -> warnings(request));
  }

  private List<String> warnings(AdmissionRequest request) {
    MachinePool updated = pool(request.object());
    String name = updated.getMetadata() == null ? null : updated.getMetadata().getName();
    MachinePool old = pool(request.oldObject());
    if (name == null || name.isEmpty() || !EvictionWarnings.addsNoExecute(old, updated)) {
      return List.of();
    }
    Optional<List<dev.ironcore.maintenance.api.compute.Machine>> bound =
        boundMachines.boundTo(name);
    return bound.isEmpty()
        ? List.of()
        : EvictionWarnings.of(old, updated, bound.get(), clock.instant());
  }

  private static MachinePool pool(JsonNode json) {
    return json == null || json.isNull() ? null : MAPPER.convertValue(json, MachinePool.class);
  }
}

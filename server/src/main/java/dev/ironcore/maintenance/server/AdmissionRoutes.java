package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.ExpectedKind;
import dev.ironcore.maintenance.server.mutation.CapiMachineMutator;
import dev.ironcore.maintenance.server.mutation.MachineMutator;
import dev.ironcore.maintenance.server.mutation.TaintTimeAddedMutator;
import dev.ironcore.maintenance.server.validation.DroppedFieldsWarning;
import dev.ironcore.maintenance.server.validation.ListFieldValidator;
import dev.ironcore.maintenance.server.validation.MachinePoolRefImmutable;
import dev.ironcore.maintenance.server.validation.MachinePoolRefName;
import dev.ironcore.maintenance.server.validation.ReadableDepth;
import dev.ironcore.maintenance.server.validation.V1alpha1AnnotationsFit;
import dev.ironcore.maintenance.server.validation.V1alpha2FieldsReadable;
import dev.ironcore.maintenance.server.validation.ValidatingHandler;
import dev.ironcore.maintenance.server.warning.BindingWarningHandler;
import dev.ironcore.maintenance.server.warning.BoundMachines;
import dev.ironcore.maintenance.server.warning.EvictionWarningHandler;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Which admission handler answers which POST path, plus the conversion path {@link #CONVERT}. The
 * paths are what the webhook and CRD manifests name.
 */
public final class AdmissionRoutes {
  /** Mutating webhook for {@code cluster.x-k8s.io} Machines. */
  public static final String MUTATE_CAPI_MACHINE = "/mutate/capi-machine";

  /** Mutating webhook for {@code compute.ironcore.dev} Machines. */
  public static final String MUTATE_MACHINE = "/mutate/machine";

  /**
   * Validating webhook for {@code compute.ironcore.dev} Machines: machinePoolRef immutability,
   * tolerations.
   */
  public static final String VALIDATE_MACHINE = "/validate/machine";

  /**
   * Validating webhook for {@code compute.ironcore.dev} MachinePools: taints; warns when an added
   * NoExecute taint will evict bound Machines.
   */
  public static final String VALIDATE_MACHINEPOOL = "/validate/machinepool";

  /**
   * Mutating webhook for {@code compute.ironcore.dev/v1alpha2} MachinePools: {@code timeAdded} on
   * NoExecute taints.
   */
  public static final String MUTATE_MACHINEPOOL = "/mutate/machinepool";

  /**
   * The CRD conversion webhook of Machines and MachinePools (ConversionReview, not an admission
   * path; served by {@link dev.ironcore.maintenance.server.conversion.ConversionReviews}).
   */
  public static final String CONVERT = "/convert";

  private static final String MACHINE = "Machine";
  private static final String POOL = "MachinePool";

  private AdmissionRoutes() {}

  /** Every path answers only reviews of its own group and kind ({@link ExpectedKind}). */
  private static AdmissionHandler guard(
      String path, String group, String kind, AdmissionHandler handler) {
    return new ExpectedKind(path, group, kind, handler);
  }

  /**
   * @param capiMachineSelector which CAPI Machines (by labels) to mutate
   * @return path → handler, in a stable order
   */
  public static Map<String, AdmissionHandler> create(
      Predicate<Map<String, String>> capiMachineSelector) {
    return create(capiMachineSelector, BoundMachines.NONE);
  }

  /**
   * @param capiMachineSelector which CAPI Machines (by labels) to mutate
   * @param boundMachines where {@link #VALIDATE_MACHINEPOOL} looks up bound Machines, and {@link
   *     #VALIDATE_MACHINE} the pool a Machine is bound to, for their eviction warnings ({@link
   *     BoundMachines#NONE}: no warnings)
   * @return path → handler, in a stable order
   */
  public static Map<String, AdmissionHandler> create(
      Predicate<Map<String, String>> capiMachineSelector, BoundMachines boundMachines) {
    return create(capiMachineSelector, boundMachines, Clock.systemUTC());
  }

  /**
   * @param capiMachineSelector which CAPI Machines (by labels) to mutate
   * @param boundMachines where {@link #VALIDATE_MACHINEPOOL} looks up bound Machines, and {@link
   *     #VALIDATE_MACHINE} the pool a Machine is bound to, for their eviction warnings ({@link
   *     BoundMachines#NONE}: no warnings)
   * @param clock the time new NoExecute taints are stamped with
   * @return path → handler, in a stable order
   */
  public static Map<String, AdmissionHandler> create(
      Predicate<Map<String, String>> capiMachineSelector,
      BoundMachines boundMachines,
      Clock clock) {
    Map<String, AdmissionHandler> routes = new LinkedHashMap<>();
    routes.put(
        MUTATE_CAPI_MACHINE,
        guard(
            MUTATE_CAPI_MACHINE,
            Names.CAPI_GROUP,
            MACHINE,
            new CapiMachineMutator(capiMachineSelector)));
    routes.put(
        MUTATE_MACHINE, guard(MUTATE_MACHINE, Names.COMPUTE_GROUP, MACHINE, new MachineMutator()));
    routes.put(
        MUTATE_MACHINEPOOL,
        guard(MUTATE_MACHINEPOOL, Names.COMPUTE_GROUP, POOL, new TaintTimeAddedMutator(clock)));
    routes.put(
        VALIDATE_MACHINE,
        guard(
            VALIDATE_MACHINE,
            Names.COMPUTE_GROUP,
            MACHINE,
            new BindingWarningHandler(
                DroppedFieldsWarning.tolerations(
                    new ValidatingHandler(
                        List.of(
                            new MachinePoolRefImmutable(),
                            new MachinePoolRefName(),
                            ListFieldValidator.tolerations(),
                            V1alpha1AnnotationsFit.tolerations(),
                            V1alpha2FieldsReadable.tolerations(),
                            new ReadableDepth()))),
                boundMachines,
                clock)));
    routes.put(
        VALIDATE_MACHINEPOOL,
        guard(
            VALIDATE_MACHINEPOOL,
            Names.COMPUTE_GROUP,
            POOL,
            new EvictionWarningHandler(
                new ValidatingHandler(
                    List.of(
                        ListFieldValidator.taints(),
                        V1alpha1AnnotationsFit.taints(),
                        V1alpha2FieldsReadable.taints(),
                        new ReadableDepth())),
                boundMachines)));
    return routes;
  }
}

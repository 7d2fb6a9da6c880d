package dev.ironcore.maintenance.server.mutation;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.MetadataPatches;
import dev.ironcore.maintenance.api.validation.LabelSyntax;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.ObjectFields;

/**
 * Mutating rule for IronCore {@code compute.ironcore.dev} Machines (domain reference §4,
 * "Mutation"): a Machine bound to a pool ({@code spec.machinePoolRef.name} non-empty) gets the
 * machinepoollet finalizer {@link Names#POOLLET_FINALIZER} if missing, so the poollet can shut the
 * VM down before the Machine disappears.
 *
 * <ul>
 *   <li>CREATE of a bound Machine: add it.
 *   <li>UPDATE of a bound Machine while neither object nor oldObject is deleting: add it. This
 *       covers the UPDATE that binds a Machine later. Chosen consequence: if someone removes the
 *       finalizer from a bound, live Machine, the same request gets it back; only a deleting
 *       Machine may lose it for good (then the poollet or an operator is releasing it).
 *   <li>A v1alpha1 {@code kubectl apply} whose manifest no longer gives a toleration the {@code
 *       tolerationSeconds} the previous one gave: removed from the annotation that keeps them
 *       ({@link AppliedSecondsRemoval}), bound or not.
 *   <li>Never on an unbound Machine or one bound to a name that is not a valid MachinePool name
 *       (DNS subdomain; nothing would ever remove the finalizer) and never while deleting (it would
 *       block the deletion). DELETE, CONNECT, subresources: no patch.
 * </ul>
 */
public final class MachineMutator implements AdmissionHandler {
  private static final ObjectFields FIELDS =
      ObjectFields.only("spec.machinePoolRef", "spec.tolerations");

  /** Reads {@code metadata}, {@code spec.machinePoolRef} and {@code spec.tolerations}. */
  @Override
  public ObjectFields objectFields() {
    return FIELDS;
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    if (!request.createsOrUpdatesLiveObject()) {
      return AdmissionResponse.allowed();
    }
    JsonPatch finalizer =
        isBound(request)
            ? MetadataPatches.ensureFinalizer(request.object(), Names.POOLLET_FINALIZER)
            : JsonPatch.empty();
    return AdmissionResponse.patched(finalizer.and(AppliedSecondsRemoval.patch(request)));
  }

  /**
   * Bound to a name that can be a MachinePool's (a DNS subdomain): for any other name no pool and
   * so no poollet exists, and validation rejects the binding.
   */
  private static boolean isBound(AdmissionRequest request) {
    String pool = KubeObjects.textAt(request.object(), "/spec/machinePoolRef/name");
    return !pool.isEmpty() && LabelSyntax.dns1123SubdomainErrors(pool).isEmpty();
  }
}

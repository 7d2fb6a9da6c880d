package dev.ironcore.maintenance.server.mutation;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.MetadataPatches;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.ObjectFields;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Mutating rule for {@code cluster.x-k8s.io} Machines (domain reference §4, "Mutation"): a CAPI
 * Machine whose labels match the selector gets our finalizer {@link Names#CLEANUP_FINALIZER} and
 * the pre-drain hook annotation {@link Names#PRE_DRAIN_HOOK_ANNOTATION} = {@link
 * Names#PRE_DRAIN_HOOK_VALUE}, each only if missing.
 *
 * <ul>
 *   <li>CREATE: add what is missing.
 *   <li>UPDATE: add what is missing only while neither the object nor oldObject has a {@code
 *       deletionTimestamp}. Once deleting, our controller removes hook and finalizer step by step;
 *       re-adding them would block the deletion forever, so a deleting object never gets a patch.
 *       (The API server itself does not stop a webhook from adding finalizers while deleting, so
 *       this rule must.)
 *   <li>DELETE, CONNECT, subresources: no patch.
 * </ul>
 *
 * <p>The selector is normally applied by the webhook's {@code objectSelector}; it is applied here
 * too so the behaviour is right even when the webhook is installed without one.
 */
public final class CapiMachineMutator implements AdmissionHandler {
  private static final ObjectFields FIELDS = ObjectFields.only();

  private final Predicate<Map<String, String>> selector;

  /**
   * @param selector which Machines (by {@code metadata.labels}) to mutate, e.g. a {@link
   *     dev.ironcore.maintenance.api.selector.LabelSelector}
   */
  public CapiMachineMutator(Predicate<Map<String, String>> selector) {
    this.selector = Objects.requireNonNull(selector, "selector");
  }

  /** Reads only {@code metadata}: labels, finalizers, annotations, deletionTimestamp. */
  @Override
  public ObjectFields objectFields() {
    return FIELDS;
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    if (!request.createsOrUpdatesLiveObject()
        || !selector.test(KubeObjects.labels(request.object()))) {
      return AdmissionResponse.allowed();
    }
    JsonPatch patch =
        MetadataPatches.on(request.object())
            .ensureFinalizer(Names.CLEANUP_FINALIZER)
            .ensureAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE)
            .build();
    return AdmissionResponse.patched(patch);
  }
}

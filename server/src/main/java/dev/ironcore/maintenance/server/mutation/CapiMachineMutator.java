package dev.ironcore.maintenance.server.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.MetadataPatches;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.AnnotationBytes;
import dev.ironcore.maintenance.server.admission.KubeObjects;
import dev.ironcore.maintenance.server.admission.ObjectFields;
import java.util.List;
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
 *   <li>Refused (422) when the hook annotation is what would take the annotations over Kubernetes'
 *       256 KiB: the API server would refuse the patched write blaming the client's annotations.
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
    java.util.Optional<AdmissionResponse> tooLong = hookOverflows(request);
    if (tooLong.isPresent()) {
      return tooLong.get();
    }
    JsonPatch patch =
        MetadataPatches.on(request.object())
            .ensureFinalizer(Names.CLEANUP_FINALIZER)
            .ensureAnnotation(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE)
            .build();
    return AdmissionResponse.patched(patch);
  }

  /**
   * A 422 when the pre-drain hook annotation this webhook sets is what takes the Machine's
   * annotations over Kubernetes' 256 KiB ({@link AnnotationBytes}): the API server would refuse the
   * patched write with {@code metadata.annotations: Too long}, blaming annotations the client never
   * sent (fresh eyes, session 42). Empty when the hook is there already with our value, or the
   * annotations are over the limit without it (the API server says so itself).
   */
  private static java.util.Optional<AdmissionResponse> hookOverflows(AdmissionRequest request) {
    JsonNode annotations = request.object().path("metadata").path("annotations");
    JsonNode hook = annotations.get(Names.PRE_DRAIN_HOOK_ANNOTATION);
    if (hook != null && Names.PRE_DRAIN_HOOK_VALUE.equals(hook.asText())) {
      return java.util.Optional.empty();
    }
    long sent = AnnotationBytes.total(annotations);
    long patched =
        sent
            - (hook == null
                ? 0
                : AnnotationBytes.of(Names.PRE_DRAIN_HOOK_ANNOTATION, hook.asText()))
            + AnnotationBytes.of(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE);
    if (sent > AnnotationBytes.LIMIT || patched <= AnnotationBytes.LIMIT) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        AdmissionResponse.invalid(
            request.kind(),
            request.displayName(),
            List.of(
                FieldError.forbidden(
                    "metadata.annotations",
                    "the pre-drain hook annotation "
                        + Names.PRE_DRAIN_HOOK_ANNOTATION
                        + "="
                        + Names.PRE_DRAIN_HOOK_VALUE
                        + " that ironcore-maintenance adds, so that the Machine is drained before"
                        + " its deletion, would make the annotations total "
                        + patched
                        + " bytes, more than the "
                        + AnnotationBytes.LIMIT
                        + " Kubernetes allows (those sent: "
                        + sent
                        + " bytes); use fewer or shorter annotations"))));
  }
}

package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The parts of an admission.k8s.io/v1 {@code AdmissionReview.request} our handlers use.
 *
 * @param uid         {@code request.uid}; echoed in the response (never empty)
 * @param kind        {@code request.kind}, the kind of {@link #object()}
 * @param resource    {@code request.resource}
 * @param subResource {@code request.subResource}, {@code ""} for the main resource
 * @param operation   {@code request.operation}
 * @param name        {@code request.name}; {@code ""} on a CREATE with generateName
 * @param namespace   {@code request.namespace}; {@code ""} for cluster-scoped objects
 * @param object      the object after the change; null on DELETE (domain reference §6)
 * @param oldObject   the object before the change; null on CREATE
 * @param dryRun      true when nothing will be persisted; handlers must have no side effects anyway
 * @param username    {@code request.userInfo.username}, {@code ""} when absent
 */
public record AdmissionRequest(
        String uid,
        GroupVersionKind kind,
        GroupVersionResource resource,
        String subResource,
        Operation operation,
        String name,
        String namespace,
        JsonNode object,
        JsonNode oldObject,
        boolean dryRun,
        String username) {

    /**
     * Reads {@code review.request}.
     *
     * @param review a whole AdmissionReview document
     * @return the request
     * @throws MalformedReviewException when {@code request}, {@code request.uid} or a valid
     *                                  {@code request.operation} is missing
     */
    public static AdmissionRequest fromReview(JsonNode review) {
        JsonNode request = KubeObjects.member(review, "request");
        if (request == null || !request.isObject()) {
            throw new MalformedReviewException("AdmissionReview has no request object");
        }
        String uid = KubeObjects.text(request, "uid");
        if (uid.isEmpty()) {
            throw new MalformedReviewException("request.uid is missing");
        }
        return new AdmissionRequest(
                uid,
                GroupVersionKind.of(request.get("kind")),
                GroupVersionResource.of(request.get("resource")),
                KubeObjects.text(request, "subResource"),
                Operation.parse(KubeObjects.text(request, "operation")),
                KubeObjects.text(request, "name"),
                KubeObjects.text(request, "namespace"),
                KubeObjects.member(request, "object"),
                KubeObjects.member(request, "oldObject"),
                request.path("dryRun").asBoolean(false),
                KubeObjects.textAt(request, "/userInfo/username"));
    }

    /**
     * True for a CREATE, or an UPDATE where neither the new nor the old object is being deleted, of
     * the object itself (not a subresource): the only requests a mutating webhook may add
     * finalizers or annotations to (domain reference §4, "never while it is being deleted") and
     * the only ones validated (an object being deleted must always be able to drop finalizers).
     * The webhook manifests' {@code not-deleting} match condition applies the same rule in the
     * API server.
     */
    public boolean createsOrUpdatesLiveObject() {
        if (!subResource().isEmpty() || object() == null) {
            return false;
        }
        return switch (operation()) {
            case CREATE -> true;
            case UPDATE -> !KubeObjects.isDeleting(object()) && !KubeObjects.isDeleting(oldObject());
            case DELETE, CONNECT -> false;
        };
    }

    /**
     * @return {@link #name()}, or on a CREATE without name {@code metadata.generateName} followed
     *         by {@code *}; for log lines and messages
     */
    public String displayName() {
        if (!name.isEmpty()) {
            return name;
        }
        String generateName = KubeObjects.textAt(object, "/metadata/generateName");
        String objectName = KubeObjects.textAt(object, "/metadata/name");
        return !objectName.isEmpty() ? objectName : generateName.isEmpty() ? "" : generateName + "*";
    }
}

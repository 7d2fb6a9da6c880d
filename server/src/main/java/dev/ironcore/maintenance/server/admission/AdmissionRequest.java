package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The parts of an admission.k8s.io/v1 {@code AdmissionReview.request} our handlers use.
 *
 * @param uid {@code request.uid}; echoed in the response (never empty)
 * @param kind {@code request.kind}, the kind of {@link #object()}
 * @param resource {@code request.resource}
 * @param subResource {@code request.subResource}, {@code ""} for the main resource
 * @param operation {@code request.operation}
 * @param name {@code request.name}; {@code ""} on a CREATE with generateName
 * @param namespace {@code request.namespace}; {@code ""} for cluster-scoped objects
 * @param object the object after the change; null on DELETE (domain reference §6)
 * @param oldObject the object before the change; null on CREATE
 * @param dryRun true when nothing will be persisted; handlers must have no side effects anyway
 * @param username {@code request.userInfo.username}, {@code ""} when absent
 * @param objectDepth how many levels {@code object} nests as sent (itself level 1), parts the tree
 *     leaves out such as {@code metadata.managedFields} included; -1 when not measured (the tree
 *     then tells)
 * @param oldObjectDepth the same for {@code oldObject}
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
    String username,
    int objectDepth,
    int oldObjectDepth) {

  /** This request with the objects' depths as measured while reading the review. */
  public AdmissionRequest withDepths(int objectDepth, int oldObjectDepth) {
    return with(object, objectDepth, oldObjectDepth);
  }

  /**
   * This request with {@code object} in place of {@link #object()}, e.g. the object as a mutating
   * handler's patch leaves it; the depths stay as measured.
   */
  public AdmissionRequest withObject(JsonNode object) {
    return with(object, objectDepth, oldObjectDepth);
  }

  private AdmissionRequest with(JsonNode object, int objectDepth, int oldObjectDepth) {
    return new AdmissionRequest(
        uid,
        kind,
        resource,
        subResource,
        operation,
        name,
        namespace,
        object,
        oldObject,
        dryRun,
        username,
        objectDepth,
        oldObjectDepth);
  }

  /**
   * Reads {@code review.request} strictly (see {@link AdmissionRequestReader} for every rule).
   *
   * @param review a whole AdmissionReview document
   * @return the request; {@code object} is non-null for CREATE and UPDATE, {@code oldObject} for
   *     UPDATE, and both are JSON objects whose {@code metadata}, when present, is one
   * @throws MalformedReviewException naming the field that is missing or has the wrong shape, e.g.
   *     {@code request.uid must be a string, got a number}
   */
  public static AdmissionRequest fromReview(JsonNode review) {
    return AdmissionRequestReader.read(review);
  }

  /**
   * True for a CREATE, or an UPDATE where neither the new nor the old object is being deleted, of
   * the object itself (not a subresource): the only requests a mutating webhook may add finalizers
   * or annotations to (domain reference §4, "never while it is being deleted") and the only ones
   * fully validated (an object being deleted must always be able to drop finalizers; on an UPDATE
   * of a deleting object only rules for immutable fields run, see {@code ValidatingHandler}). The
   * mutating webhook manifests' {@code not-deleting} match condition applies the same rule in the
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
   * @return {@link #name()}, or on a CREATE without name {@code metadata.generateName} followed by
   *     {@code *}; for log lines and messages
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

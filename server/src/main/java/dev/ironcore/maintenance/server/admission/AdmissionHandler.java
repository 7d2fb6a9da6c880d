package dev.ironcore.maintenance.server.admission;

/**
 * A pure admission decision: no I/O, no HTTP. Implementations may throw; {@link AdmissionReviews}
 * turns any exception into an errored response carrying the request's uid.
 */
@FunctionalInterface
public interface AdmissionHandler {
  /**
   * @param request the parsed request
   * @return the decision (never null)
   */
  AdmissionResponse handle(AdmissionRequest request);

  /**
   * What this handler reads of {@code request.object} and {@code request.oldObject} beside {@code
   * apiVersion}, {@code kind} and {@code metadata}; the review reader skips the rest (see {@link
   * ObjectFields}). A handler that reads a field it does not declare sees it missing.
   *
   * @return {@link ObjectFields#ALL} unless overridden
   */
  default ObjectFields objectFields() {
    return ObjectFields.ALL;
  }
}

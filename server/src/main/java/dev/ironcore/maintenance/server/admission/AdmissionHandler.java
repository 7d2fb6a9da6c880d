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
}

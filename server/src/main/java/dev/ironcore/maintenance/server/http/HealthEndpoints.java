package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.tls.ServingCertificate;
import java.util.Optional;
import org.eclipse.jetty.server.Request;

/**
 * {@code GET /healthz} and {@code GET /readyz}: 200 {@code ok}, or 500 with the reason when the
 * serving certificate cannot be (re)loaded, has expired or is not yet valid (a failing liveness
 * probe restarts the pod, which reads the files afresh).
 */
public final class HealthEndpoints {
  private final ServingCertificate certificate;

  /**
   * @param certificate the served identity whose health is reported
   */
  public HealthEndpoints(ServingCertificate certificate) {
    this.certificate = certificate;
  }

  /** Handles {@code /healthz}. */
  public Reply healthz(Request request) {
    return report(certificate.problem());
  }

  /** Handles {@code /readyz}: ready once serving with a usable certificate. */
  public Reply readyz(Request request) {
    return report(certificate.problem());
  }

  private static Reply report(Optional<String> problem) {
    return problem.isPresent()
        ? Reply.text(500, "certificate: " + problem.get() + "\n")
        : Reply.text(200, "ok\n");
  }
}

package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.tls.ServingCertificate;
import io.javalin.http.Context;
import java.util.Optional;

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
  public void healthz(Context ctx) {
    report(ctx, certificate.problem());
  }

  /** Handles {@code /readyz}: ready once serving with a usable certificate. */
  public void readyz(Context ctx) {
    report(ctx, certificate.problem());
  }

  private static void report(Context ctx, Optional<String> problem) {
    ctx.contentType("text/plain; charset=utf-8");
    if (problem.isPresent()) {
      ctx.status(500).result("certificate: " + problem.get() + "\n");
    } else {
      ctx.status(200).result("ok\n");
    }
  }
}

package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.certs.Serials;
import dev.ironcore.maintenance.server.tls.ServingCertificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import org.eclipse.jetty.server.Request;

/**
 * {@code GET /healthz} (liveness) and {@code GET /readyz} (readiness), plain text.
 *
 * <ul>
 *   <li>{@code /healthz}: 200 {@code ok} whenever the server answers. A restart never mends a
 *       certificate (the files are re-read every few seconds anyway), and one with unusable files
 *       would not start again: a liveness probe that looked at the certificate could only turn a
 *       bad Secret into a crash loop.
 *   <li>{@code /readyz}: 500 {@code certificate: ...} while the served certificate has expired or
 *       is not yet valid (kube-apiserver would refuse it); otherwise 200 {@code ok}. While the
 *       files do not hold a usable pair (a bad rotation) the server keeps serving the previous,
 *       valid certificate and stays ready, as controller-runtime's webhook server does; the body
 *       then carries a second line {@code warning: cannot load ...; still serving ...}, and the log
 *       and the metric {@code ironcore_maintenance_serving_certificate_reload_failing} report it.
 * </ul>
 */
public final class HealthEndpoints {
  private final ServingCertificate certificate;

  /**
   * @param certificate the served identity whose health is reported
   */
  public HealthEndpoints(ServingCertificate certificate) {
    this.certificate = certificate;
  }

  /** Handles {@code /healthz}: 200 {@code ok}. */
  public Reply healthz(Request request) {
    return Reply.text(200, "ok\n");
  }

  /** Handles {@code /readyz}: ready while the served certificate is valid. */
  public Reply readyz(Request request) {
    Optional<String> serving = certificate.servingProblem();
    Optional<String> reload = certificate.reloadProblem();
    String warning = "";
    if (reload.isPresent()) {
      X509Certificate served = certificate.current();
      warning =
          "warning: "
              + reload.get()
              + "; still serving the previous certificate (serial "
              + Serials.hex(served)
              + ", valid until "
              + served.getNotAfter().toInstant()
              + ")\n";
    }
    return serving.isPresent()
        ? Reply.text(500, "certificate: " + serving.get() + "\n" + warning)
        : Reply.text(200, "ok\n" + warning);
  }
}

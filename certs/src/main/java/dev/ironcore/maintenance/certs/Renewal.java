package dev.ironcore.maintenance.certs;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/** When a certificate should be replaced: the "less than a third of its validity left" rule. */
public final class Renewal {

  private Renewal() {}

  /**
   * @return true when {@code now} is past the certificate's notAfter
   */
  public static boolean expired(X509Certificate certificate, Instant now) {
    return now.isAfter(certificate.getNotAfter().toInstant());
  }

  /**
   * @return true when less than a third of the certificate's lifetime (notBefore to notAfter) is
   *     left at {@code now}, or it has expired
   */
  public static boolean due(X509Certificate certificate, Instant now) {
    Instant notBefore = certificate.getNotBefore().toInstant();
    Instant notAfter = certificate.getNotAfter().toInstant();
    Duration lifetime = Duration.between(notBefore, notAfter);
    Duration left = Duration.between(now, notAfter);
    return left.multipliedBy(3).compareTo(lifetime) < 0;
  }
}

package dev.ironcore.maintenance.certs;

import java.math.BigInteger;
import java.security.cert.X509Certificate;
import java.util.Locale;

/**
 * Certificate serial numbers written as {@code openssl x509 -serial} writes them: upper-case hex of
 * the number, an even count of digits (a leading {@code 0} kept), so a serial in our logs can be
 * searched for with what openssl or {@code kubectl get secret ... | openssl x509 -noout -serial}
 * prints.
 */
public final class Serials {
  private Serials() {}

  /**
   * @param serial a non-negative serial number
   * @return e.g. {@code 0D762918F2A3529244560409C20D155C}
   */
  public static String hex(BigInteger serial) {
    String hex = serial.toString(16).toUpperCase(Locale.ROOT);
    return hex.length() % 2 == 0 ? hex : "0" + hex;
  }

  /** {@link #hex(BigInteger)} of the certificate's serial number. */
  public static String hex(X509Certificate certificate) {
    return hex(certificate.getSerialNumber());
  }
}

package dev.ironcore.maintenance.certs.install;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/**
 * How long a new serving certificate lives: never past its CA, which kube-apiserver would refuse it
 * with from then on. An explicit {@code VALIDITY} that does not fit is refused; the default that
 * does not fit, under an existing CA (such as the 365-day one {@code make run} creates) or a new
 * one ({@code CA_VALIDITY=365d}), is shortened to end a minute before it.
 */
final class ServingValidity {
  /** The lifetime when {@code VALIDITY} is not set. */
  static final Duration DEFAULT = Duration.ofDays(365);

  /** Room between the serving certificate's end and its CA's, for the time issuing takes. */
  private static final Duration MARGIN = Duration.ofMinutes(1);

  private ServingValidity() {}

  /**
   * The lifetime to issue with.
   *
   * @param requested {@code VALIDITY}, or null for {@link #DEFAULT}
   * @param ca the CA that issues
   * @param newCa whether this run creates {@code ca} (then {@code CA_VALIDITY} is to blame)
   * @param now the current time
   * @return {@code requested}, or the default, shortened to end with the CA (fresh eyes: {@code
   *     CA_VALIDITY=365d make rotate-certs} was refused, its default certificate outliving the new
   *     CA by the time the run took)
   * @throws Refusal when an explicit {@code VALIDITY} would outlive the CA
   */
  static Duration of(Duration requested, X509Certificate ca, boolean newCa, Instant now) {
    Duration wanted = requested == null ? DEFAULT : requested;
    Instant caEnd = ca.getNotAfter().toInstant();
    if (!now.plus(wanted).isAfter(caEnd.minus(MARGIN))) {
      return wanted;
    }
    if (requested == null) {
      return Duration.between(now, caEnd.minus(MARGIN));
    }
    throw outlives(now.plus(wanted), ca, newCa, now);
  }

  /**
   * @param leaf the issued serving certificate
   * @param ca its CA
   * @param newCa whether this run creates {@code ca}
   * @throws Refusal when {@code leaf} expires after {@code ca}
   */
  static void requireWithin(X509Certificate leaf, X509Certificate ca, boolean newCa, Instant now) {
    if (leaf.getNotAfter().after(ca.getNotAfter())) {
      throw outlives(leaf.getNotAfter().toInstant(), ca, newCa, now);
    }
  }

  /** True when {@code validity} (from {@link #of}) was shortened from the default. */
  static boolean shortened(Duration requested, Duration validity) {
    return requested == null && !validity.equals(DEFAULT);
  }

  private static Refusal outlives(Instant end, X509Certificate ca, boolean newCa, Instant now) {
    Duration room = Duration.between(now, ca.getNotAfter().toInstant().minus(MARGIN));
    // advise a VALIDITY only where one that fits may be set (fresh eyes: "at most 59m" while
    // VALIDITY under 1h is refused)
    String shorter =
        room.compareTo(CertsMain.MIN_VALIDITY) >= 0
            ? "set VALIDITY (--validity) to at most " + Lifetime.flagValue(room) + ", or "
            : "";
    return new Refusal(
        "the serving certificate would expire at "
            + end.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            + ", not "
            + MARGIN.toMinutes()
            + " minute before its CA "
            + ca.getSubjectX500Principal().getName()
            + " (expires "
            + ca.getNotAfter().toInstant()
            + "), and kube-apiserver would refuse it once the CA has expired; "
            + shorter
            + (newCa
                ? "set CA_VALIDITY (--ca-validity) longer"
                : "rotate to a new CA (make rotate-certs)"));
  }
}

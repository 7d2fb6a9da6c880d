package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RenewalTest {
  private static final X509Certificate CA =
      CertificateAuthority.generate("ca", Duration.ofDays(90)).certificate();

  @Test
  void dueOnceLessThanAThirdOfTheLifetimeIsLeft() {
    Instant notBefore = CA.getNotBefore().toInstant();
    Instant notAfter = CA.getNotAfter().toInstant();
    Duration lifetime = Duration.between(notBefore, notAfter);
    Instant twoThirds = notBefore.plus(lifetime.multipliedBy(2).dividedBy(3));
    assertThat(Renewal.due(CA, notBefore)).isFalse();
    assertThat(Renewal.due(CA, twoThirds.minusSeconds(60))).isFalse();
    assertThat(Renewal.due(CA, twoThirds.plusSeconds(60))).isTrue();
    assertThat(Renewal.expired(CA, twoThirds.plusSeconds(60))).isFalse();
    assertThat(Renewal.due(CA, notAfter.plusSeconds(1))).isTrue();
    assertThat(Renewal.expired(CA, notAfter.plusSeconds(1))).isTrue();
  }
}

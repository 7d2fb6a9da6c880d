package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CaBundleTest {
  private final CertificateAuthority a = CertificateAuthority.generate("a", Duration.ofDays(1));
  private final CertificateAuthority b =
      CertificateAuthority.generate("b", Duration.ofDays(1), KeyAlgorithm.RSA);

  @Test
  void unionKeepsOrderWithoutDuplicatesAndRoundTripsAsPem() {
    CaBundle both = CaBundle.of(a.certificate()).plus(b.certificate()).plus(a.certificate());
    assertThat(both.certificates()).containsExactly(a.certificate(), b.certificate());
    assertThat(CaBundle.parse(both.pem())).isEqualTo(both);
    assertThat(both.isExactly(a.certificate())).isFalse();
    assertThat(CaBundle.of(b.certificate()).isExactly(b.certificate())).isTrue();
  }

  @Test
  void blankIsEmptyAndGarbageIsAnError() {
    assertThat(CaBundle.parse("").isEmpty()).isTrue();
    assertThat(CaBundle.parse(null).isEmpty()).isTrue();
    assertThatThrownBy(() -> CaBundle.parse("garbage"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void knowsWhichCaSignedALeafAndDropsExpiredCas() {
    var leaf = b.issueServing("s", List.of("s"), List.of(), Duration.ofHours(1)).certificate();
    assertThat(CaBundle.of(a.certificate()).signed(leaf)).isFalse();
    assertThat(CaBundle.of(a.certificate()).plus(b.certificate()).signed(leaf)).isTrue();
    CaBundle both = CaBundle.of(a.certificate()).plus(b.certificate());
    assertThat(both.withoutExpired(Instant.now().plus(Duration.ofDays(2))).isEmpty()).isTrue();
    assertThat(both.withoutExpired(Instant.now())).isEqualTo(both);
  }
}

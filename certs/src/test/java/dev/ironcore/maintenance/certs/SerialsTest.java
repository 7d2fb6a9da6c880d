package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SerialsTest {
  @Test
  void serialsAreWrittenAsOpensslWritesThem() {
    assertThat(Serials.hex(new BigInteger("d762918f", 16))).isEqualTo("D762918F");
    assertThat(Serials.hex(new BigInteger("d76291f", 16))).isEqualTo("0D76291F");
    assertThat(Serials.hex(BigInteger.ONE)).isEqualTo("01");
    CertificateAuthority ca = CertificateAuthority.generate("a", Duration.ofDays(1));
    assertThat(Serials.hex(ca.certificate()))
        .isEqualTo(Serials.hex(ca.certificate().getSerialNumber()))
        .matches("([0-9A-F]{2})+");
  }
}

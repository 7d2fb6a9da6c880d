package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PemTest {

  @Test
  void rsaAndEcKeysRoundTrip() {
    for (KeyPair kp : List.of(KeyPairs.rsa2048(), KeyPairs.ecP256())) {
      String pem = Pem.encode(kp.getPrivate());
      assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
      assertThat(Pem.decodePrivateKey(pem)).isEqualTo(kp.getPrivate());
      assertThat(Pem.encode(kp.getPublic())).startsWith("-----BEGIN PUBLIC KEY-----");
    }
  }

  @Test
  void decodesCertificateChainInOrder() {
    CertificateAuthority a = CertificateAuthority.generate("a", Duration.ofDays(1));
    CertificateAuthority b = CertificateAuthority.generate("b", Duration.ofDays(1));
    String bundle = a.certificatePem() + b.certificatePem();
    assertThat(Pem.decodeCertificates(bundle)).containsExactly(a.certificate(), b.certificate());
  }

  @Test
  void rejectsTextWithoutBlocks() {
    assertThatThrownBy(() -> Pem.decodeCertificate("hello")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Pem.decodePrivateKey("")).isInstanceOf(IllegalArgumentException.class);
  }
}

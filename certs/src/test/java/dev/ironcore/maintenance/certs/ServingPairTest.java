package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServingPairTest {
  private final CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));

  @Test
  void parsesAMatchingPairAndReadsItsSans() {
    IssuedCertificate issued =
        ca.issueServing(
            "svc",
            List.of("svc", "svc.ns.svc"),
            List.of("127.0.0.1"),
            Duration.ofDays(1),
            KeyAlgorithm.RSA);
    ServingPair pair = ServingPair.of(issued);
    assertThat(pair.privateKey().getAlgorithm()).isEqualTo("RSA");
    assertThat(pair.subjectAlternativeNames()).containsExactly("svc", "svc.ns.svc", "127.0.0.1");
    assertThat(pair.covers(List.of("svc.ns.svc", "127.0.0.1"))).isTrue();
    assertThat(pair.covers(List.of("localhost"))).isFalse();
    assertThat(pair.sansAgainst(List.of("SVC.ns.svc", "svc", "127.000.0.1")).none()).isTrue();
    ServingPair.SanDifference diff = pair.sansAgainst(List.of("svc", "localhost"));
    assertThat(diff.missing()).containsExactly("localhost");
    assertThat(diff.extra()).containsExactly("svc.ns.svc", "127.0.0.1");
  }

  /**
   * Fresh eyes (session 37): make certs printed {@code ::1} from the certificate as {@code
   * 0:0:0:0:0:0:0:1}, as the JDK writes it; RFC 5952 is how kubectl, openssl and Go print it.
   */
  @Test
  void ipv6NamesReadInRfc5952Form() {
    IssuedCertificate issued =
        ca.issueServing(
            "svc",
            List.of("svc"),
            List.of("::1", "2001:DB8:0:0:1:0:0:1", "fe80::", "1:0:0:2:0:0:0:3"),
            Duration.ofDays(1));
    ServingPair pair = ServingPair.of(issued);
    assertThat(pair.subjectAlternativeNames())
        .containsExactly("svc", "::1", "2001:db8::1:0:0:1", "fe80::", "1:0:0:2::3");
    assertThat(
            pair.sansAgainst(
                    List.of(
                        "svc", "0:0:0:0:0:0:0:1", "2001:db8:0:0:1::1", "fe80:0::0", "1::2:0:0:0:3"))
                .none())
        .isTrue();
    assertThat(ServingPair.canonicalIp("0:0:0:0:0:0:0:0")).isEqualTo("::");
    assertThat(ServingPair.canonicalIp("1:2:3:4:5:6:7:0")).isEqualTo("1:2:3:4:5:6:7:0");
    assertThat(ServingPair.canonicalIp("::ffff:10.0.0.1")).isEqualTo("10.0.0.1");
    assertThat(ServingPair.canonicalIp("svc.ns.svc")).isEqualTo("svc.ns.svc");
  }

  @Test
  void refusesEmptyGarbageAndMismatchedPairs() {
    IssuedCertificate one = ca.issueServing("one", List.of(), List.of(), Duration.ofDays(1));
    IssuedCertificate two = ca.issueServing("two", List.of(), List.of(), Duration.ofDays(1));
    assertThatThrownBy(() -> ServingPair.parse("", one.privateKeyPem()))
        .hasMessageContaining("tls.crt is empty");
    assertThatThrownBy(() -> ServingPair.parse(one.certificatePem(), "   "))
        .hasMessageContaining("tls.key is empty");
    // none at all (a deleted file, a Secret without the key) is not "empty"
    assertThatThrownBy(() -> ServingPair.parse(one.certificatePem(), null))
        .hasMessage("tls.key is missing");
    assertThatThrownBy(() -> ServingPair.parse(null, one.privateKeyPem()))
        .hasMessage("tls.crt is missing");
    assertThatThrownBy(() -> ServingPair.parse("junk", one.privateKeyPem()))
        .hasMessageContaining("tls.crt");
    assertThatThrownBy(() -> ServingPair.parse(one.certificatePem(), two.privateKeyPem()))
        .hasMessageContaining("not the private key");
    // what the webhook server refuses to load (fresh eyes, session 46): a second certificate that
    // is not the leaf's issuer, the leaf twice
    assertThatThrownBy(
            () ->
                ServingPair.parse(
                    one.certificatePem()
                        + CertificateAuthority.generate("other", Duration.ofDays(1))
                            .certificatePem(),
                    one.privateKeyPem()))
        .hasMessageContaining("tls.crt: certificate 2 of 2 (CN=other) is not the issuer");
    assertThatThrownBy(
            () ->
                ServingPair.parse(one.certificatePem() + one.certificatePem(), one.privateKeyPem()))
        .hasMessageContaining("repeats certificate 1");
    assertThat(ServingPair.parse(one.certificatePem() + ca.certificatePem(), one.privateKeyPem()))
        .as("the leaf, then its issuer")
        .isNotNull();
  }
}

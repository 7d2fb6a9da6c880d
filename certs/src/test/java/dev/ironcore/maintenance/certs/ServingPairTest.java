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
  }
}

package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.ServingPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Host names and IPs matched against SANs as Go's crypto/x509 (kube-apiserver) matches them. */
class HostMatchTest {
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("host-match-ca", Duration.ofDays(1));

  private static X509Certificate leaf(List<String> dns, List<String> ips) {
    return ServingPair.of(CA.issueServing("svc", dns, ips, Duration.ofDays(1))).leaf();
  }

  @Test
  void anIpIsCoveredOnlyByAnEqualIpSan() {
    X509Certificate c =
        leaf(List.of("127.0.0.1.example.com", "localhost"), List.of("::1", "10.0.0.1"));
    assertThat(HostMatch.covers(c, "10.0.0.1")).isTrue();
    assertThat(HostMatch.covers(c, "0:0:0:0:0:0:0:1")).isTrue();
    assertThat(HostMatch.covers(c, "127.0.0.1")).isFalse();
    assertThat(HostMatch.covers(leaf(List.of("foo.example.com"), List.of()), "127.0.0.1"))
        .isFalse();
  }

  @Test
  void aDnsNameIsCoveredByAnEqualNameOrAOneLabelWildcard() {
    X509Certificate c = leaf(List.of("Svc.NS.svc", "*.example.com"), List.of("10.0.0.1"));
    assertThat(HostMatch.covers(c, "svc.ns.svc")).isTrue();
    assertThat(HostMatch.covers(c, "a.example.com")).isTrue();
    assertThat(HostMatch.covers(c, "a.b.example.com")).isFalse();
    assertThat(HostMatch.covers(c, "example.com")).isFalse();
    assertThat(HostMatch.covers(c, "other.ns.svc")).isFalse();
  }
}

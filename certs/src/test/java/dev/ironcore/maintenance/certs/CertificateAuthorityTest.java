package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateAuthorityTest {

  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  private final CertificateAuthority ca =
      CertificateAuthority.generate("test-ca", Duration.ofDays(1));

  @Test
  void caIsSelfSignedCa() throws Exception {
    X509Certificate c = ca.certificate();
    assertThat(c.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=test-ca");
    c.verify(c.getPublicKey());
    assertThat(c.getKeyUsage()[5]).as("keyCertSign").isTrue();
    assertThat(c.getNotAfter().toInstant())
        .isBefore(Instant.now().plus(Duration.ofDays(1).plusMinutes(1)));
    assertThat(ca.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");
  }

  @Test
  void servingCertificateHasSansAndServerAuth() throws Exception {
    IssuedCertificate issued =
        ca.issueServing(
            "web",
            List.of("web", "web.ns.svc", "localhost"),
            List.of("127.0.0.1", "::1"),
            Duration.ofHours(1));
    X509Certificate c = issued.certificate();

    c.verify(ca.certificate().getPublicKey());
    c.checkValidity();
    assertThat(c.getBasicConstraints()).isEqualTo(-1);
    assertThat(c.getExtendedKeyUsage()).containsExactly(SERVER_AUTH);
    assertThat(c.getKeyUsage()[0]).as("digitalSignature").isTrue();
    assertThat(c.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
    assertThat(sans(c, 2)).containsExactly("web", "web.ns.svc", "localhost");
    assertThat(sans(c, 7).stream().map(CertificateAuthorityTest::normalizeIp))
        .containsExactly(
            InetAddress.getByName("127.0.0.1").getHostAddress(),
            InetAddress.getByName("::1").getHostAddress());
    assertThat(issued.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");
  }

  @Test
  void clientCertificateCarriesGroupsAndClientAuth() throws Exception {
    X509Certificate c =
        ca.issueClient("admin", List.of("system:masters"), Duration.ofHours(1)).certificate();
    c.verify(ca.certificate().getPublicKey());
    assertThat(c.getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
    assertThat(c.getSubjectAlternativeNames()).isNull();
    assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=admin,O=system:masters");
  }

  @Test
  void pemRoundTripsThroughFilesAndLoad(@TempDir Path dir) throws Exception {
    ca.writeTo(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    CertificateAuthority loaded =
        CertificateAuthority.load(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    assertThat(loaded.certificatePem()).isEqualTo(ca.certificatePem());
    assertThat(loaded.privateKeyPem()).isEqualTo(ca.privateKeyPem());

    IssuedCertificate issued =
        loaded.issueServing("x", List.of("x"), List.of(), Duration.ofHours(1));
    issued.certificate().verify(ca.certificate().getPublicKey());
    assertThat(Pem.encode(issued.certificate())).isEqualTo(issued.certificatePem());
    assertThat(Pem.encode(issued.privateKey())).isEqualTo(issued.privateKeyPem());
  }

  @Test
  void loadRejectsForeignKeyAndNonCa(@TempDir Path dir) {
    CertificateAuthority other = CertificateAuthority.generate("other", Duration.ofDays(1));
    ca.writeTo(dir.resolve("ca.crt"), dir.resolve("ignored.key"));
    other.writeTo(dir.resolve("other.crt"), dir.resolve("other.key"));
    assertThatThrownBy(
            () -> CertificateAuthority.load(dir.resolve("ca.crt"), dir.resolve("other.key")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not the private key");

    ca.issueServing("leaf", List.of(), List.of(), Duration.ofHours(1))
        .writeTo(dir.resolve("leaf.crt"), dir.resolve("leaf.key"));
    assertThatThrownBy(
            () -> CertificateAuthority.load(dir.resolve("leaf.crt"), dir.resolve("leaf.key")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a CA")
        .as("says what to change (fresh eyes, session 44: it named the file alone)")
        .hasMessageContaining("basicConstraints=critical,CA:TRUE");
  }

  @Test
  void rejectsNonPositiveValidity() {
    assertThatThrownBy(() -> CertificateAuthority.generate("x", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ca.issueClient("x", List.of(), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static List<String> sans(X509Certificate c, int type) throws Exception {
    return c.getSubjectAlternativeNames().stream()
        .filter(l -> (Integer) l.get(0) == type)
        .map(l -> (String) l.get(1))
        .collect(Collectors.toList());
  }

  private static String normalizeIp(String ip) {
    try {
      return InetAddress.getByName(ip).getHostAddress();
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}

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
      assertThat(pem)
          .startsWith("-----BEGIN PRIVATE KEY-----\n")
          .endsWith("-----END PRIVATE KEY-----\n");
      assertThat(Pem.decodePrivateKey(pem)).isEqualTo(kp.getPrivate());
      assertThat(Pem.encode(kp.getPublic())).startsWith("-----BEGIN PUBLIC KEY-----");
    }
  }

  @Test
  void ecKeyAsSec1CarriesTheCurveAndRoundTrips() throws Exception {
    KeyPair kp = KeyPairs.ecP256();
    String sec1 = Pem.encodeSec1(kp.getPrivate());
    assertThat(sec1).startsWith("-----BEGIN EC PRIVATE KEY-----\n");
    assertThat(((java.security.interfaces.ECPrivateKey) Pem.decodePrivateKey(sec1)).getS())
        .isEqualTo(((java.security.interfaces.ECPrivateKey) kp.getPrivate()).getS());
    String body = sec1.replaceAll("-----[A-Z ]+-----|\\s", "");
    org.bouncycastle.asn1.sec.ECPrivateKey parsed =
        org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(
            java.util.Base64.getDecoder().decode(body));
    assertThat(parsed.getParametersObject().toString()).isEqualTo("1.2.840.10045.3.1.7"); // P-256
    assertThatThrownBy(() -> Pem.encodeSec1(KeyPairs.rsa2048().getPrivate()))
        .isInstanceOf(IllegalArgumentException.class);
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
    assertThatThrownBy(() -> Pem.decodeCertificate("hello"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Pem.decodePrivateKey("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aBlockWithABrokenBodySaysWhichBlockAndWhatIsWrongWithoutTheJdksWording() {
    CertificateAuthority ca = CertificateAuthority.generate("a", Duration.ofDays(1));
    String brokenCert = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assertThatThrownBy(() -> Pem.decodeCertificates(ca.certificatePem() + brokenCert))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "CERTIFICATE block 2 is not an X.509 certificate (3 bytes of DER after base64"
                + " decoding)")
        .hasCauseInstanceOf(java.security.cert.CertificateException.class);
    assertThatThrownBy(
            () -> Pem.decodeCertificate("-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----"))
        .hasMessageStartingWith("CERTIFICATE block 1 is not an X.509 certificate (0 bytes");
    assertThatThrownBy(
            () ->
                Pem.decodeCertificate(
                    "-----BEGIN CERTIFICATE-----\nAAAAA\n-----END CERTIFICATE-----"))
        .hasMessage("the CERTIFICATE block is truncated or damaged (5 base64 characters)");
    assertThatThrownBy(
            () ->
                Pem.decodeCertificate(
                    "-----BEGIN CERTIFICATE-----\nMIIC%%%%\n-----END CERTIFICATE-----"))
        .hasMessage("the CERTIFICATE block is not base64: character '%' at line 2, column 5");
    assertThatThrownBy(
            () ->
                Pem.decodeCertificate(
                    "-----BEGIN CERTIFICATE-----\nMIIC\nAB-D\n-----END CERTIFICATE-----"))
        .hasMessage("the CERTIFICATE block is not base64: character '-' at line 3, column 3");
    CertificateAuthority cut = CertificateAuthority.generate("cut", Duration.ofDays(1));
    String pem = cut.certificatePem();
    assertThatThrownBy(() -> Pem.decodeCertificate(pem.substring(0, pem.length() / 2)))
        .hasMessage("the CERTIFICATE block has no END line (is the file cut short?)");
    // a legacy encrypted key (RFC 1421 headers) is skipped as before, not called damaged
    String encrypted =
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n"
            + "AAAA\n-----END RSA PRIVATE KEY-----\n";
    assertThatThrownBy(() -> Pem.decodePrivateKey(encrypted))
        .hasMessage("no unencrypted private key block found in PEM text");
    assertThatThrownBy(
            () ->
                Pem.decodePrivateKey(
                    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"))
        .hasMessage(
            "the PRIVATE KEY block is not a PKCS#8 private key (RSA, EC, Ed25519/Ed448, DSA or"
                + " X25519/X448; 3 bytes of DER after base64 decoding)");
    assertThatThrownBy(() -> Pem.decodeCertificate(" \n"))
        .hasMessage("no CERTIFICATE block found in PEM text (the text is empty)");
    assertThatThrownBy(() -> Pem.decodeCertificate("hello"))
        .hasMessage("no CERTIFICATE block found in PEM text");
    assertThatThrownBy(() -> Pem.decodePrivateKey(""))
        .hasMessage("no unencrypted private key block found in PEM text (the text is empty)");
  }
}

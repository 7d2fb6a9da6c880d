package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A certificate file holding more than the leaf must list the leaf first, then each issuer once, in
 * order; a file that does not is refused naming it and saying what to change (fresh eyes, session
 * 44: {@code cat tls.crt tls.crt} was refused as "cannot build key store" alone, and {@code cat
 * inter.crt leaf.crt} as "not the private key").
 */
class PemKeyStoresChainTest {
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("chain-test-ca", Duration.ofDays(1));
  private static final IssuedCertificate LEAF =
      CA.issueServing("webhook", List.of("webhook.svc"), List.of(), Duration.ofHours(1));

  private static KeyStore load(String certPem) {
    return PemKeyStores.fromPem(certPem, LEAF.privateKeyPem(), new char[0], "tls.crt", "tls.key");
  }

  @Test
  void theLeafThenItsIssuerLoads() throws Exception {
    KeyStore ks = load(LEAF.certificatePem() + CA.certificatePem());
    assertThat(ks.getCertificateChain(ks.aliases().nextElement())).hasSize(2);
  }

  @Test
  void aCertificateGivenTwiceIsRefusedNamingThePositions() {
    assertThatThrownBy(() -> load(LEAF.certificatePem() + LEAF.certificatePem()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tls.crt: certificate 2 of 2 (CN=webhook) repeats certificate 1: list the leaf first,"
                + " then each issuer in order, each once");
    // a self-signed CA twice names itself as its issuer (fresh eyes, session 46: "cannot build key
    // store: Certificate chain is not valid")
    assertThatThrownBy(
            () -> load(LEAF.certificatePem() + CA.certificatePem() + CA.certificatePem()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tls.crt: certificate 3 of 3 (CN=chain-test-ca) repeats certificate 2: list the leaf"
                + " first, then each issuer in order, each once");
    // the leaf again after its issuer, where a CA of the leaf's own name makes the names follow
    // (review, session 46: the key store's "Certificate chain is not valid")
    CertificateAuthority named = CertificateAuthority.generate("webhook", Duration.ofDays(1));
    IssuedCertificate leaf =
        named.issueServing("webhook", List.of("webhook.svc"), List.of(), Duration.ofHours(1));
    assertThatThrownBy(
            () ->
                PemKeyStores.fromPem(
                    leaf.certificatePem() + named.certificatePem() + leaf.certificatePem(),
                    leaf.privateKeyPem(),
                    new char[0],
                    "tls.crt",
                    "tls.key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tls.crt: certificate 3 of 3 (CN=webhook) repeats certificate 1: list the leaf first,"
                + " then each issuer in order, each once");
    assertThatThrownBy(
            () ->
                load(
                    LEAF.certificatePem()
                        + CertificateAuthority.generate("other", Duration.ofDays(1))
                            .certificatePem()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tls.crt: certificate 2 of 2 (CN=other) is not the issuer of certificate 1 (issued by"
                + " CN=chain-test-ca): list the leaf first, then each issuer in order, each once");
  }

  @Test
  void theLeafAfterItsIssuerIsRefusedSayingSo() {
    assertThatThrownBy(() -> load(CA.certificatePem() + LEAF.certificatePem()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tls.key is the private key of certificate 2 of 2 in tls.crt (CN=webhook), not of the"
                + " first: list the leaf first, then its issuers");
  }
}

package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.util.Base64;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jce.ECNamedCurveTable;
import org.bouncycastle.jce.spec.ECNamedCurveParameterSpec;
import org.bouncycastle.jce.spec.ECParameterSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EC keys and certificates with explicit curve parameters (OpenSSL's {@code -param_enc explicit}),
 * made here with BouncyCastle: refused with one message whichever provider would have read them;
 * the same curve by name still decodes.
 */
class EcCurveEncodingTest {
  /** A P-256 key pair encoded with the curve's parameters spelled out, and its certificate. */
  private record Explicit(byte[] certificate, byte[] pkcs8, byte[] sec1) {
    static Explicit p256() throws Exception {
      ECNamedCurveParameterSpec named = ECNamedCurveTable.getParameterSpec("P-256");
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", SelfSigned.BC);
      generator.initialize(
          new ECParameterSpec(named.getCurve(), named.getG(), named.getN(), named.getH()),
          new SecureRandom());
      KeyPair pair = generator.generateKeyPair();
      byte[] certificate = SelfSigned.certificate(pair, "SHA256withECDSA");
      byte[] pkcs8 = pair.getPrivate().getEncoded();
      byte[] sec1 =
          PrivateKeyInfo.getInstance(pkcs8).parsePrivateKey().toASN1Primitive().getEncoded();
      return new Explicit(certificate, pkcs8, sec1);
    }
  }

  @Test
  void explicitParametersAreFoundInACertificateAndBothKeyFormats() throws Exception {
    Explicit explicit = Explicit.p256();
    assertThat(EcCurveEncoding.certificate(explicit.certificate())).isTrue();
    assertThat(EcCurveEncoding.pkcs8(explicit.pkcs8())).isTrue();
    assertThat(EcCurveEncoding.sec1(explicit.sec1())).isTrue();
    // the same curve by name, and RSA: not explicit
    CertificateAuthority ec = CertificateAuthority.generate("named", java.time.Duration.ofDays(1));
    KeyPair named = KeyPairs.ecP256();
    assertThat(EcCurveEncoding.certificate(ec.certificate().getEncoded())).isFalse();
    assertThat(EcCurveEncoding.pkcs8(named.getPrivate().getEncoded())).isFalse();
    assertThat(
            EcCurveEncoding.sec1(
                Base64.getMimeDecoder()
                    .decode(
                        Pem.encodeSec1(named.getPrivate()).replaceAll("-----[A-Z ]+-----", ""))))
        .isFalse();
    assertThat(EcCurveEncoding.pkcs8(KeyPairs.rsa2048().getPrivate().getEncoded())).isFalse();
    // what it cannot walk is left to the decoders
    for (byte[] junk : new byte[][] {{}, {0x30}, {0x30, (byte) 0x84, 1, 1, 1, 1}, {0x30, 5, 2}}) {
      assertThat(EcCurveEncoding.certificate(junk)).isFalse();
      assertThat(EcCurveEncoding.pkcs8(junk)).isFalse();
      assertThat(EcCurveEncoding.sec1(junk)).isFalse();
    }
  }

  @Test
  void pemRefusesThemWithOneMessage() throws Exception {
    Explicit explicit = Explicit.p256();
    assertThatThrownBy(
            () -> Pem.decodeCertificates(SelfSigned.pem("CERTIFICATE", explicit.certificate())))
        .hasMessageStartingWith(
            "CERTIFICATE block 1 has an EC public key with explicit curve parameters instead of a"
                + " named curve: Go TLS clients such as kube-apiserver refuse it")
        .hasNoCause();
    assertThatThrownBy(() -> Pem.decodePrivateKey(SelfSigned.pem("PRIVATE KEY", explicit.pkcs8())))
        .hasMessageStartingWith(
            "the PRIVATE KEY block is an EC key with explicit curve parameters instead of a named"
                + " curve")
        .hasMessageEndingWith("openssl pkey -in KEY -ec_param_enc named_curve -out NAMED.key");
    assertThatThrownBy(
            () -> Pem.decodePrivateKey(SelfSigned.pem("EC PRIVATE KEY", explicit.sec1())))
        .hasMessageStartingWith("the EC PRIVATE KEY block is an EC key with explicit curve");
  }

  @Test
  void theServingPairNamesTheFile(@TempDir Path tmp) throws Exception {
    Explicit explicit = Explicit.p256();
    Path crt = tmp.resolve("tls.crt");
    Path key = tmp.resolve("tls.key");
    Files.writeString(
        crt, SelfSigned.pem("CERTIFICATE", explicit.certificate()), StandardCharsets.US_ASCII);
    Files.writeString(
        key, SelfSigned.pem("PRIVATE KEY", KeyPairs.ecP256().getPrivate().getEncoded()));
    assertThatThrownBy(() -> PemKeyStores.load(crt, key))
        .hasMessageContaining("tls.crt")
        .hasMessageContaining("explicit curve parameters");
  }
}

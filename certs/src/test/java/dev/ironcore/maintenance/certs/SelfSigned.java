package dev.ironcore.maintenance.certs;

import java.math.BigInteger;
import java.security.KeyPair;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Test material the JDK cannot make or read (explicit curve parameters, P-224, secp256k1):
 * self-signed certificates signed with BouncyCastle, and PEM blocks of raw DER.
 */
final class SelfSigned {
  static final BouncyCastleProvider BC = new BouncyCastleProvider();

  private SelfSigned() {}

  /**
   * A certificate for {@code pair}, valid from a minute ago for an hour, its public key encoded as
   * the pair encodes it.
   *
   * @return its DER
   */
  static byte[] certificate(KeyPair pair, String signatureAlgorithm) throws Exception {
    X500Name name = new X500Name("CN=self-signed");
    return new X509v3CertificateBuilder(
            name,
            BigInteger.ONE,
            Date.from(Instant.now().minusSeconds(60)),
            Date.from(Instant.now().plusSeconds(3600)),
            name,
            SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded()))
        .build(
            new JcaContentSignerBuilder(signatureAlgorithm)
                .setProvider(BC)
                .build(pair.getPrivate()))
        .getEncoded();
  }

  /** {@code der} as one PEM block of {@code type}. */
  static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}

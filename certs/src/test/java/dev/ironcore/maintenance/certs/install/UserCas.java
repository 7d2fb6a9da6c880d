package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.KeyAlgorithm;
import dev.ironcore.maintenance.certs.Pem;
import java.math.BigInteger;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * CAs a user might put into {@code CERTS_DIR}, made as {@code openssl} would with their extensions:
 * one whose name constraints permit only {@code DNS:example.com}, one whose keyUsage lacks
 * keyCertSign.
 */
final class UserCas {
  private UserCas() {}

  /** {@code nameConstraints=critical,permitted;DNS:example.com}, valid for a day. */
  static CertificateAuthority nameConstrained() throws Exception {
    return build(
        "user-ca-example-com",
        new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign),
        new NameConstraints(
            new GeneralSubtree[] {
              new GeneralSubtree(new GeneralName(GeneralName.dNSName, "example.com"))
            },
            null));
  }

  /** {@code keyUsage=critical,digitalSignature,keyEncipherment}: no keyCertSign. */
  static CertificateAuthority withoutKeyCertSign() throws Exception {
    return build(
        "user-ca-no-certsign",
        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment),
        null);
  }

  /** A CA as above whose validity starts tomorrow (made on a machine whose clock runs ahead). */
  static CertificateAuthority notYetValid() throws Exception {
    return build(
        "user-ca-tomorrow",
        new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign),
        null,
        Instant.now().plus(Duration.ofDays(1)));
  }

  /**
   * A serving certificate (PEM) and its key (PEM), issued by {@code ca} for {@code dns} and {@code
   * ips}, whose validity starts tomorrow.
   */
  static String[] servingNotYetValid(CertificateAuthority ca, List<String> dns, List<String> ips)
      throws Exception {
    KeyPair keys = KeyAlgorithm.ECDSA.generate();
    Instant from = Instant.now().plus(Duration.ofDays(1));
    var b =
        new JcaX509v3CertificateBuilder(
            ca.certificate(),
            BigInteger.valueOf(from.toEpochMilli()),
            Date.from(from),
            Date.from(from.plus(Duration.ofDays(30))),
            new X500Principal("CN=ironcore-maintenance-webhook"),
            keys.getPublic());
    List<GeneralName> names = new ArrayList<>();
    dns.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
    ips.forEach(n -> names.add(new GeneralName(GeneralName.iPAddress, n)));
    b.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(names.toArray(GeneralName[]::new)));
    var cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                b.build(
                    new JcaContentSignerBuilder("SHA256withECDSA")
                        .build(Pem.decodePrivateKey(ca.privateKeyPem()))));
    return new String[] {Pem.encode(cert), Pem.encode(keys.getPrivate())};
  }

  private static CertificateAuthority build(String cn, KeyUsage usage, NameConstraints nc)
      throws Exception {
    return build(cn, usage, nc, Instant.now().minusSeconds(300));
  }

  private static CertificateAuthority build(
      String cn, KeyUsage usage, NameConstraints nc, Instant notBefore) throws Exception {
    KeyPair keys = KeyAlgorithm.ECDSA.generate();
    X500Name name = new X500Name("CN=" + cn);
    Instant now = Instant.now();
    var b =
        new JcaX509v3CertificateBuilder(
            name,
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(notBefore),
            Date.from(notBefore.plus(Duration.ofDays(1))),
            name,
            keys.getPublic());
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(Extension.keyUsage, true, usage);
    if (nc != null) {
      b.addExtension(Extension.nameConstraints, true, nc);
    }
    var cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
    return CertificateAuthority.parse(
        Pem.encode(cert), Pem.encode(keys.getPrivate()), cn + ".crt", cn + ".key");
  }
}

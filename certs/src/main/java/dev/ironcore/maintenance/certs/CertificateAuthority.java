package dev.ironcore.maintenance.certs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate authority (EC P-256 by default, or RSA 2048) that issues serving and
 * client certificates for local clusters, webhooks and tests.
 *
 * <p>Every certificate's {@code notBefore} lies five minutes in the past to tolerate clock skew;
 * {@code notAfter} is {@code now + validity}. Issued leaf keys are fresh keys of the requested
 * {@link KeyAlgorithm} (EC P-256 unless said otherwise).
 */
public final class CertificateAuthority {

  private static final Duration BACKDATE = Duration.ofMinutes(5);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final X509Certificate certificate;
  private final PrivateKey privateKey;

  private CertificateAuthority(X509Certificate certificate, PrivateKey privateKey) {
    this.certificate = certificate;
    this.privateKey = privateKey;
  }

  /**
   * Creates a new self-signed CA.
   *
   * @param commonName subject CN, e.g. {@code "ironcore-maintenance-ca"}
   * @param validity how long the CA is valid from now; must be positive
   */
  public static CertificateAuthority generate(String commonName, Duration validity) {
    return generate(commonName, validity, KeyAlgorithm.ECDSA);
  }

  /**
   * Creates a new self-signed CA with a key of the given type.
   *
   * @param commonName subject CN
   * @param validity how long the CA is valid from now; must be positive
   * @param algorithm key type of the CA
   */
  public static CertificateAuthority generate(
      String commonName, Duration validity, KeyAlgorithm algorithm) {
    requirePositive(validity);
    KeyPair keys = algorithm.generate();
    X500Name subject = name(commonName, List.of());
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              subject,
              serial(),
              Date.from(now.minus(BACKDATE)),
              Date.from(now.plus(validity)),
              subject,
              keys.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      return new CertificateAuthority(sign(b, keys.getPrivate()), keys.getPrivate());
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot create CA certificate", e);
    }
  }

  /**
   * Loads a CA from PEM files written by {@link #certificatePem()} and {@link #privateKeyPem()} (or
   * any unencrypted PKCS#8, PKCS#1 or SEC1 key).
   *
   * @throws UncheckedIOException if a file cannot be read
   * @throws IllegalArgumentException if the PEM is malformed, the certificate is no CA, or the key
   *     does not belong to the certificate
   */
  public static CertificateAuthority load(Path certPem, Path keyPem) {
    String certText;
    String keyText;
    try {
      certText = Files.readString(certPem);
      keyText = Files.readString(keyPem);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CA from " + certPem + " and " + keyPem, e);
    }
    return parse(certText, keyText, certPem.toString(), keyPem.toString());
  }

  /**
   * A CA from PEM text.
   *
   * @param certName how to name the certificate in error messages (e.g. its file)
   * @param keyName how to name the key in error messages
   * @throws IllegalArgumentException if the PEM is empty or malformed, holds more than one
   *     certificate, the certificate is no CA, or the key does not belong to the certificate
   */
  public static CertificateAuthority parse(
      String certPem, String keyPem, String certName, String keyName) {
    X509Certificate cert;
    PrivateKey key;
    try {
      List<X509Certificate> certs = Pem.decodeCertificates(certPem);
      if (certs.size() > 1) {
        // which one signs would be a guess, and a chain (an intermediate CA) is not supported:
        // kube-apiserver is given this one certificate as the caBundle
        throw new IllegalArgumentException(
            "holds "
                + certs.size()
                + " certificates; a CA file holds its CA's certificate alone (the one the key"
                + " belongs to)");
      }
      cert = certs.get(0);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(certName + ": " + e.getMessage(), e);
    }
    try {
      key = Pem.decodePrivateKey(keyPem);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(keyName + ": " + e.getMessage(), e);
    }
    if (cert.getBasicConstraints() < 0) {
      throw new IllegalArgumentException(
          certName
              + " is not a CA certificate (its basicConstraints extension does not say CA:TRUE):"
              + " give a CA's certificate and key (made with openssl req -x509 ... -addext"
              + " basicConstraints=critical,CA:TRUE)");
    }
    KeyMatch.require(cert.getPublicKey(), key, keyName, certName);
    return new CertificateAuthority(cert, key);
  }

  /**
   * Issues a TLS server certificate (extended key usage serverAuth).
   *
   * @param cn subject CN
   * @param dnsNames DNS subject alternative names (may be empty)
   * @param ipAddresses IP subject alternative names as literals, e.g. {@code "127.0.0.1"}
   * @param validity lifetime from now; must be positive
   */
  public IssuedCertificate issueServing(
      String cn, List<String> dnsNames, List<String> ipAddresses, Duration validity) {
    return issueServing(cn, dnsNames, ipAddresses, validity, KeyAlgorithm.ECDSA);
  }

  /** As {@link #issueServing(String, List, List, Duration)} with a fresh key of {@code keys}. */
  public IssuedCertificate issueServing(
      String cn,
      List<String> dnsNames,
      List<String> ipAddresses,
      Duration validity,
      KeyAlgorithm keys) {
    return issue(
        cn, List.of(), dnsNames, ipAddresses, KeyPurposeId.id_kp_serverAuth, validity, keys);
  }

  /**
   * Issues a TLS client certificate (extended key usage clientAuth). Kubernetes reads the CN as the
   * user name and each O as a group (e.g. {@code "system:masters"}).
   *
   * @param cn subject CN (user name)
   * @param organizations subject O values (groups), may be empty
   * @param validity lifetime from now; must be positive
   */
  public IssuedCertificate issueClient(String cn, List<String> organizations, Duration validity) {
    return issue(
        cn,
        organizations,
        List.of(),
        List.of(),
        KeyPurposeId.id_kp_clientAuth,
        validity,
        KeyAlgorithm.ECDSA);
  }

  /** The CA certificate. */
  public X509Certificate certificate() {
    return certificate;
  }

  /** The CA certificate as one {@code CERTIFICATE} PEM block. */
  public String certificatePem() {
    return Pem.encode(certificate);
  }

  /** The CA private key as PKCS#8 PEM ({@code -----BEGIN PRIVATE KEY-----}). */
  public String privateKeyPem() {
    return Pem.encode(privateKey);
  }

  /** Writes {@link #certificatePem()} and {@link #privateKeyPem()} (key owner-only). */
  public void writeTo(Path certFile, Path keyFile) {
    new IssuedCertificate(certificatePem(), privateKeyPem()).writeTo(certFile, keyFile);
  }

  private IssuedCertificate issue(
      String cn,
      List<String> organizations,
      List<String> dnsNames,
      List<String> ipAddresses,
      KeyPurposeId purpose,
      Duration validity,
      KeyAlgorithm algorithm) {
    Objects.requireNonNull(cn, "cn");
    requirePositive(validity);
    KeyPair keys = algorithm.generate();
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              certificate,
              serial(),
              Date.from(now.minus(BACKDATE)),
              Date.from(now.plus(validity)),
              name(cn, organizations),
              keys.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      b.addExtension(
          Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
      List<GeneralName> sans = new ArrayList<>();
      dnsNames.forEach(d -> sans.add(new GeneralName(GeneralName.dNSName, d)));
      ipAddresses.forEach(ip -> sans.add(new GeneralName(GeneralName.iPAddress, ip)));
      if (!sans.isEmpty()) {
        b.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(sans.toArray(GeneralName[]::new)));
      }
      X509Certificate leaf = sign(b, privateKey);
      return new IssuedCertificate(Pem.encode(leaf), Pem.encode(keys.getPrivate()));
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot issue certificate for " + cn, e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer) {
    try {
      String alg = signer.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
      ContentSigner cs = new JcaContentSignerBuilder(alg).build(signer);
      return new JcaX509CertificateConverter().getCertificate(builder.build(cs));
    } catch (OperatorCreationException | CertificateException e) {
      throw new IllegalStateException("cannot sign certificate", e);
    }
  }

  private static X500Name name(String cn, List<String> organizations) {
    X500NameBuilder nb = new X500NameBuilder(BCStyle.INSTANCE);
    organizations.forEach(o -> nb.addRDN(BCStyle.O, o));
    nb.addRDN(BCStyle.CN, cn);
    return nb.build();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static void requirePositive(Duration validity) {
    if (validity == null || validity.isNegative() || validity.isZero()) {
      throw new IllegalArgumentException("validity must be positive, got " + validity);
    }
  }
}

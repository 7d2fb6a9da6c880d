package dev.ironcore.maintenance.certs;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * PEM encoding and decoding of certificates and keys.
 *
 * <p>Private keys are always written as PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}); reading also
 * accepts the legacy {@code RSA PRIVATE KEY} and {@code EC PRIVATE KEY} blocks.
 */
public final class Pem {

  private Pem() {}

  /** Encodes one certificate as a {@code CERTIFICATE} PEM block (ends with a newline). */
  public static String encode(X509Certificate certificate) {
    try {
      return write("CERTIFICATE", certificate.getEncoded());
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new IllegalArgumentException("certificate cannot be encoded", e);
    }
  }

  /** Encodes a private key (RSA or EC) as a PKCS#8 {@code PRIVATE KEY} PEM block. */
  public static String encode(PrivateKey key) {
    return write("PRIVATE KEY", key.getEncoded());
  }

  /**
   * Encodes an EC private key as SEC1 ({@code -----BEGIN EC PRIVATE KEY-----}) with the named curve
   * inside the structure, as OpenSSL and Go's {@code x509.ParseECPrivateKey} write it. Use it where
   * a consumer cannot read PKCS#8 EC keys, e.g. fabric8's kubeconfig loader ({@code
   * client-key-data}); kubectl reads both forms.
   *
   * @throws IllegalArgumentException if the key is not an EC key
   */
  public static String encodeSec1(PrivateKey key) {
    if (!(key instanceof java.security.interfaces.ECPrivateKey ec)) {
      throw new IllegalArgumentException("not an EC private key: " + key.getAlgorithm());
    }
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
    try {
      ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
      ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
      int orderBits = ec.getParams().getOrder().bitLength();
      ECPrivateKey sec1 =
          inner.getPublicKey() == null
              ? new ECPrivateKey(orderBits, inner.getKey(), curve)
              : new ECPrivateKey(orderBits, inner.getKey(), inner.getPublicKey(), curve);
      return write("EC PRIVATE KEY", sec1.getEncoded());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot re-encode EC key", e);
    }
  }

  /** Encodes a public key as an X.509 SubjectPublicKeyInfo {@code PUBLIC KEY} PEM block. */
  public static String encode(PublicKey key) {
    return write("PUBLIC KEY", key.getEncoded());
  }

  /**
   * Decodes every {@code CERTIFICATE} block in {@code pem}, in order; other blocks are skipped.
   *
   * @throws IllegalArgumentException if the text holds no certificate or a block is malformed
   */
  public static List<X509Certificate> decodeCertificates(String pem) {
    List<X509Certificate> out = new ArrayList<>();
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof X509CertificateHolder holder) {
          out.add(converter.getCertificate(holder));
        }
      }
    } catch (IOException | CertificateException e) {
      throw new IllegalArgumentException("malformed certificate PEM: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no CERTIFICATE block found in PEM text");
    }
    return out;
  }

  /** Decodes the first certificate in {@code pem}; see {@link #decodeCertificates(String)}. */
  public static X509Certificate decodeCertificate(String pem) {
    return decodeCertificates(pem).get(0);
  }

  /**
   * Decodes the first private key in {@code pem} (PKCS#8, PKCS#1 RSA or SEC1 EC, unencrypted).
   *
   * @throws IllegalArgumentException if no unencrypted private key is found
   */
  public static PrivateKey decodePrivateKey(String pem) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed private key PEM: " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("no unencrypted private key block found in PEM text");
  }

  private static String write(String type, byte[] der) {
    StringWriter sw = new StringWriter();
    try (PemWriter writer = new PemWriter(sw)) {
      writer.writeObject(new PemObject(type, der));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sw.toString();
  }
}

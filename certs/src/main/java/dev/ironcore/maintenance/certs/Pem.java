package dev.ironcore.maintenance.certs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
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
 *
 * <p>Certificates and PKCS#8 keys are read with the JDK alone; BouncyCastle is loaded only for the
 * legacy key blocks and for writing, so a process that just reads its serving certificate (the
 * webhook server) never loads it.
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
   * @throws IllegalArgumentException if the text holds no certificate, a block is malformed, or a
   *     certificate's EC key has explicit curve parameters ({@link EcCurveEncoding}: whichever TLS
   *     provider could read it, kube-apiserver cannot)
   */
  public static List<X509Certificate> decodeCertificates(String pem) {
    List<X509Certificate> out = new ArrayList<>();
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("this JVM has no X.509 certificate factory", e);
    }
    for (Block block : blocks(pem)) {
      if (!block.type().equals("CERTIFICATE")) {
        continue;
      }
      if (EcCurveEncoding.certificate(block.der())) {
        throw new IllegalArgumentException(
            "CERTIFICATE block "
                + (out.size() + 1)
                + " has an EC public key with explicit curve parameters instead of a named curve:"
                + " Go TLS clients such as kube-apiserver refuse it (RFC 5480 allows named curves"
                + " only); issue it for P-256, P-384 or P-521 by name (openssl: -pkeyopt"
                + " ec_param_enc:named_curve)");
      }
      try {
        out.add(
            (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
      } catch (CertificateException e) {
        // the JDK's message ("Could not parse certificate: java.io.IOException: Empty input") names
        // neither the block nor what is wrong with it; the cause keeps it
        throw new IllegalArgumentException(
            "CERTIFICATE block "
                + (out.size() + 1)
                + " is not an X.509 certificate ("
                + block.der().length
                + " bytes of DER after base64 decoding)",
            e);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          pem.isBlank()
              ? "no CERTIFICATE block found in PEM text (the text is empty)"
              : "no CERTIFICATE block found in PEM text");
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
   * @throws IllegalArgumentException if no unencrypted private key is found, or the key is an EC
   *     key with explicit curve parameters ({@link EcCurveEncoding})
   */
  public static PrivateKey decodePrivateKey(String pem) {
    for (Block block : blocks(pem)) {
      switch (block.type()) {
        case "PRIVATE KEY":
          if (EcCurveEncoding.pkcs8(block.der())) {
            throw explicitCurve(block.type());
          }
          return pkcs8(block.der());
        case "RSA PRIVATE KEY", "EC PRIVATE KEY":
          if (block.type().equals("EC PRIVATE KEY") && EcCurveEncoding.sec1(block.der())) {
            throw explicitCurve(block.type());
          }
          return Legacy.decodePrivateKey(pem);
        default:
          // not a key (e.g. a certificate, or an encrypted key): skipped
      }
    }
    throw new IllegalArgumentException(
        pem.isBlank()
            ? "no unencrypted private key block found in PEM text (the text is empty)"
            : "no unencrypted private key block found in PEM text");
  }

  private static IllegalArgumentException explicitCurve(String type) {
    return new IllegalArgumentException(
        "the "
            + type
            + " block is an EC key with explicit curve parameters instead of a named curve (RFC"
            + " 5480; the JDK cannot use it, and its certificate would be refused by Go TLS"
            + " clients such as kube-apiserver); name the curve into a new file: openssl pkey -in"
            + " KEY -ec_param_enc named_curve -out NAMED.key");
  }

  /** One PEM block: its type (the word(s) after {@code BEGIN}) and its decoded content. */
  private record Block(String type, byte[] der) {}

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");

  private static final Pattern BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----");

  /** Every complete block of {@code pem}, in order; text between blocks is ignored. */
  private static List<Block> blocks(String pem) {
    List<Block> out = new ArrayList<>();
    List<Integer> starts = new ArrayList<>();
    Matcher m = BLOCK.matcher(pem);
    while (m.find()) {
      starts.add(m.start());
      String body = m.group(2);
      if (body.contains(":")) {
        // RFC 1421 headers (Proc-Type, DEK-Info): a legacy encrypted key, never ours to read
        out.add(new Block("ENCRYPTED " + m.group(1), new byte[0]));
        continue;
      }
      out.add(new Block(m.group(1), base64(m.group(1), pem, m.start(2), m.end(2))));
    }
    refuseUnterminated(pem, starts);
    return out;
  }

  /**
   * A block's body ({@code pem} from {@code start} to {@code end}), strictly (RFC 7468: base64 with
   * line breaks; the MIME decoder would drop any other character silently and decode the rest).
   * Errors name the line and column in {@code pem}.
   */
  private static byte[] base64(String type, String pem, int start, int end) {
    StringBuilder text = new StringBuilder(end - start);
    for (int i = start; i < end; i++) {
      char c = pem.charAt(i);
      if (Character.isWhitespace(c)) {
        continue;
      }
      boolean alphabet =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '+'
              || c == '/'
              || c == '=';
      if (!alphabet) {
        int line = 1 + (int) pem.substring(0, i).chars().filter(ch -> ch == '\n').count();
        int column = i - pem.lastIndexOf('\n', i - 1);
        throw new IllegalArgumentException(
            "the "
                + type
                + " block is not base64: character '"
                + c
                + "' at line "
                + line
                + ", column "
                + column);
      }
      text.append(c);
    }
    try {
      return Base64.getDecoder().decode(text.toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the "
              + type
              + " block is truncated or damaged ("
              + text.length()
              + " base64 characters)",
          e);
    }
  }

  /**
   * Refuses a {@code BEGIN} line without its {@code END} line (a file cut short while written).
   *
   * @param complete the start offsets of the complete blocks
   */
  private static void refuseUnterminated(String pem, List<Integer> complete) {
    Matcher begin = BEGIN.matcher(pem);
    while (begin.find()) {
      if (complete.contains(begin.start())) {
        continue;
      }
      int end = pem.indexOf("-----END " + begin.group(1) + "-----", begin.end());
      if (end < 0) {
        throw new IllegalArgumentException(
            "the " + begin.group(1) + " block has no END line (is the file cut short?)");
      }
      if (pem.substring(begin.end(), end).contains(":")) {
        continue; // RFC 1421 headers (Proc-Type, DEK-Info): a legacy encrypted key, skipped
      }
      // the block pattern stops at a '-' inside the body
      base64(begin.group(1), pem, begin.end(), end);
    }
  }

  /** A PKCS#8 key of any algorithm the JDK knows (RSA, EC, Ed25519/Ed448, DSA, X25519/X448). */
  private static PrivateKey pkcs8(byte[] der) {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : List.of("RSA", "EC", "EdDSA", "DSA", "XDH", "RSASSA-PSS")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // not this algorithm; try the next
      }
    }
    throw new IllegalArgumentException(
        "the PRIVATE KEY block is not a PKCS#8 private key (RSA, EC, Ed25519/Ed448, DSA or"
            + " X25519/X448; "
            + der.length
            + " bytes of DER after base64 decoding)");
  }

  /** The legacy key blocks, read with BouncyCastle (loaded only when such a block is read). */
  private static final class Legacy {
    private Legacy() {}

    static PrivateKey decodePrivateKey(String pem) {
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
  }

  private static String write(String type, byte[] der) {
    return Writer.write(type, der);
  }

  /**
   * BouncyCastle's PEM writer, in a class of its own: the JVM checks {@code PemObject} against
   * {@code PemObjectGenerator} when it links the class that makes the call, and loading one class
   * of bcprov (a signed jar) makes it verify the jar's signature first, about 0.1-0.2 s of the
   * webhook server's start (its AOT cache cannot hold classes of signed jars).
   */
  private static final class Writer {
    private Writer() {}

    static String write(String type, byte[] der) {
      StringWriter sw = new StringWriter();
      try (PemWriter writer = new PemWriter(sw)) {
        writer.writeObject(new PemObject(type, der));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return sw.toString();
    }
  }
}

package dev.ironcore.maintenance.certs;

import java.util.Arrays;

/**
 * Does an EC key name its curve or spell out the curve's parameters? RFC 5480 (section 2.1.1)
 * allows only {@code namedCurve} in certificates; OpenSSL still writes {@code specifiedCurve}
 * (explicit parameters) when asked ({@code -param_enc explicit}). Go's crypto/x509, and so
 * kube-apiserver calling a webhook, refuses such a certificate; the JDK refuses both the
 * certificate and the key ("Only named ECParameters supported") while Conscrypt accepts them, so
 * the webhook server would start with one TLS provider, fail with the other, and in either case
 * fail every call from kube-apiserver. {@link Pem} asks here first and refuses with one message.
 *
 * <p>Reads just enough DER (X.690) to find the key's AlgorithmIdentifier; anything it cannot walk
 * counts as "not explicit", leaving the error to the decoder that reads the whole structure.
 */
final class EcCurveEncoding {
  private EcCurveEncoding() {}

  /** id-ecPublicKey, 1.2.840.10045.2.1, as its DER content octets. */
  private static final byte[] EC_PUBLIC_KEY = {
    0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };

  private static final int SEQUENCE = 0x30;
  private static final int OID = 0x06;
  private static final int INTEGER = 0x02;
  private static final int OCTET_STRING = 0x04;
  private static final int CONTEXT_0 = 0xa0;

  /** Certificate (RFC 5280): its subjectPublicKeyInfo's algorithm has explicit EC parameters. */
  static boolean certificate(byte[] der) {
    return walks(
        () -> {
          int[] cert = into(der, 0, SEQUENCE);
          int[] tbs = into(der, cert[0], SEQUENCE);
          int at = tbs[0];
          if ((der[at] & 0xff) == CONTEXT_0) {
            at = skip(der, at); // version
          }
          for (int i = 0; i < 5; i++) { // serial, signature, issuer, validity, subject
            at = skip(der, at);
          }
          int[] spki = into(der, at, SEQUENCE);
          return explicit(der, spki[0]);
        });
  }

  /** PKCS#8 PrivateKeyInfo (RFC 5208): its privateKeyAlgorithm has explicit EC parameters. */
  static boolean pkcs8(byte[] der) {
    return walks(
        () -> {
          int[] info = into(der, 0, SEQUENCE);
          int at = skip(der, expect(der, info[0], INTEGER)); // version
          return explicit(der, at);
        });
  }

  /** SEC 1 ECPrivateKey ({@code EC PRIVATE KEY}): its {@code [0]} parameters are not an OID. */
  static boolean sec1(byte[] der) {
    return walks(
        () -> {
          int[] key = into(der, 0, SEQUENCE);
          int at = skip(der, expect(der, key[0], INTEGER)); // version
          at = skip(der, expect(der, at, OCTET_STRING)); // privateKey
          if (at >= key[1] || (der[at] & 0xff) != CONTEXT_0) {
            return false; // no parameters: the curve comes from elsewhere
          }
          int[] parameters = into(der, at, CONTEXT_0);
          return (der[parameters[0]] & 0xff) == SEQUENCE;
        });
  }

  /** A walk of the DER; false where it cannot go on (truncated, unexpected tag or length form). */
  private static boolean walks(java.util.function.BooleanSupplier walk) {
    try {
      return walk.getAsBoolean();
    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
      return false;
    }
  }

  /** The AlgorithmIdentifier at {@code at}: id-ecPublicKey with a SEQUENCE (specifiedCurve). */
  private static boolean explicit(byte[] der, int at) {
    int[] algorithm = into(der, at, SEQUENCE);
    int[] oid = into(der, algorithm[0], OID);
    if (!Arrays.equals(der, oid[0], oid[1], EC_PUBLIC_KEY, 0, EC_PUBLIC_KEY.length)) {
      return false;
    }
    return oid[1] < algorithm[1] && (der[oid[1]] & 0xff) == SEQUENCE;
  }

  private static int expect(byte[] der, int at, int tag) {
    if ((der[at] & 0xff) != tag) {
      throw new IllegalArgumentException("unexpected tag");
    }
    return at;
  }

  /** The element at {@code at}, which must have {@code tag}: {start of content, end of content}. */
  private static int[] into(byte[] der, int at, int tag) {
    expect(der, at, tag);
    int[] content = content(der, at);
    if (content[1] > der.length) {
      throw new IndexOutOfBoundsException("element runs past the end");
    }
    return content;
  }

  /** The offset after the element at {@code at}. */
  private static int skip(byte[] der, int at) {
    return content(der, at)[1];
  }

  private static int[] content(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    if (first < 0x80) {
      return new int[] {at + 2, at + 2 + first};
    }
    int octets = first & 0x7f;
    if (octets == 0 || octets > 3) {
      throw new IllegalArgumentException("unsupported length");
    }
    int length = 0;
    for (int i = 0; i < octets; i++) {
      length = (length << 8) | (der[at + 2 + i] & 0xff);
    }
    int start = at + 2 + octets;
    return new int[] {start, start + length};
  }
}

package dev.ironcore.maintenance.certs;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.util.List;

/**
 * The certificate keys a Go TLS peer accepts: kube-apiserver calling a webhook (and a Go API server
 * checking a client certificate) uses Go's crypto/tls, which signs and verifies ECDSA only on
 * P-256, P-384 and P-521 (its TLS signature schemes; a P-224 certificate fails the handshake) and,
 * since Go 1.24, refuses RSA keys under 1,024 bits (crypto/rsa's minimum key size). Conscrypt
 * serves such certificates and the JDK some of them, so a pair our server would start with could
 * fail every call from the API server, with no error on our side.
 */
final class GoTlsKeys {
  private GoTlsKeys() {}

  /** Smallest RSA modulus Go accepts, in bits. */
  static final int MIN_RSA_BITS = 1024;

  private static final List<BigInteger> NIST_ORDERS =
      List.of(order("secp256r1"), order("secp384r1"), order("secp521r1"));

  /**
   * @param key a certificate's public key
   * @param certName how to name the certificate in the message (e.g. its file)
   * @throws IllegalArgumentException naming the certificate, when a Go TLS peer would refuse the
   *     key
   */
  static void require(PublicKey key, String certName) {
    if (key instanceof RSAPublicKey rsa && rsa.getModulus().bitLength() < MIN_RSA_BITS) {
      throw new IllegalArgumentException(
          certName
              + ": its RSA key has "
              + rsa.getModulus().bitLength()
              + " bits; Go TLS clients such as kube-apiserver refuse RSA keys under "
              + MIN_RSA_BITS
              + " bits (Go 1.24+): issue it with 2048 bits or more");
    }
    if (key instanceof ECPublicKey ec && !NIST_ORDERS.contains(ec.getParams().getOrder())) {
      throw new IllegalArgumentException(
          certName
              + ": its EC key is on a "
              + ec.getParams().getCurve().getField().getFieldSize()
              + "-bit curve other than P-256, P-384 and P-521; Go TLS clients such as"
              + " kube-apiserver fail the handshake with it: issue it for P-256, P-384 or P-521");
    }
  }

  private static BigInteger order(String curve) {
    try {
      AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
      parameters.init(new ECGenParameterSpec(curve));
      return parameters.getParameterSpec(ECParameterSpec.class).getOrder();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM does not know the curve " + curve, e);
    }
  }
}

package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import org.junit.jupiter.api.Test;

/**
 * Serving pairs a Go TLS peer (kube-apiserver) would fail the handshake with are refused when the
 * key store is built, naming the certificate, whichever provider could have served them; the curves
 * and RSA sizes Go accepts still load.
 */
class GoTlsKeysTest {
  /** A self-signed pair as PEM: {certificate, key}. */
  private static String[] pair(KeyPair pair, String signature) throws Exception {
    return new String[] {
      SelfSigned.pem("CERTIFICATE", SelfSigned.certificate(pair, signature)),
      SelfSigned.pem("PRIVATE KEY", pair.getPrivate().getEncoded())
    };
  }

  private static KeyPair ec(String curve) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC", SelfSigned.BC);
    g.initialize(new ECGenParameterSpec(curve));
    return g.generateKeyPair();
  }

  private static KeyPair rsa(int bits) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(bits);
    return g.generateKeyPair();
  }

  private static void load(String[] pair) {
    PemKeyStores.fromPem(pair[0], pair[1], new char[0], "tls.crt", "tls.key");
  }

  @Test
  void curvesAndRsaSizesGoRefusesAreRefusedNamingTheCertificate() throws Exception {
    for (String curve : new String[] {"P-224", "secp256k1"}) {
      String[] pair = pair(ec(curve), "SHA256withECDSA");
      assertThatThrownBy(() -> load(pair))
          .as(curve)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("tls.crt: its EC key is on a ")
          .hasMessageContaining("curve other than P-256, P-384 and P-521")
          .hasMessageContaining("kube-apiserver");
    }
    String[] small = pair(rsa(512), "SHA256withRSA");
    assertThatThrownBy(() -> load(small))
        .hasMessage(
            "tls.crt: its RSA key has 512 bits; Go TLS clients such as kube-apiserver refuse RSA"
                + " keys under 1024 bits (Go 1.24+): issue it with 2048 bits or more");
  }

  @Test
  void whatGoAcceptsStillLoads() throws Exception {
    for (String curve : new String[] {"P-256", "P-384", "P-521"}) {
      String[] pair = pair(ec(curve), "SHA256withECDSA");
      load(pair);
    }
    for (int bits : new int[] {1024, 2048}) {
      load(pair(rsa(bits), "SHA256withRSA"));
    }
    assertThat(GoTlsKeys.MIN_RSA_BITS).isEqualTo(1024);
  }
}

package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.Security;
import java.security.spec.ECGenParameterSpec;
import org.conscrypt.Conscrypt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyMatchTest {

  @AfterEach
  void removeConscrypt() {
    Security.removeProvider(KeyMatch.CONSCRYPT);
  }

  @ParameterizedTest(name = "Conscrypt registered: {0}")
  @ValueSource(booleans = {false, true})
  void acceptsTheKeyOfItsCertificateAndRefusesAnyOther(boolean conscrypt) throws Exception {
    if (conscrypt) {
      Security.addProvider(Conscrypt.newProvider());
      assertThat(KeyMatch.preferred()).isNotNull();
    } else {
      assertThat(KeyMatch.preferred()).isNull();
    }
    KeyPair ec = ec();
    KeyPair otherEc = ec();
    KeyPair rsa = rsa();
    KeyPair otherRsa = rsa();

    assertThat(KeyMatch.belongTogether(ec.getPublic(), ec.getPrivate())).isTrue();
    assertThat(KeyMatch.belongTogether(rsa.getPublic(), rsa.getPrivate())).isTrue();
    assertThat(KeyMatch.belongTogether(ec.getPublic(), otherEc.getPrivate())).isFalse();
    assertThat(KeyMatch.belongTogether(rsa.getPublic(), otherRsa.getPrivate())).isFalse();
    assertThat(KeyMatch.belongTogether(ec.getPublic(), rsa.getPrivate())).isFalse();
    assertThat(KeyMatch.belongTogether(rsa.getPublic(), ec.getPrivate())).isFalse();
    if (conscrypt) {
      // Conscrypt itself takes the JDK's key objects (no fallback to the JDK's providers involved)
      Provider p = KeyMatch.preferred();
      assertThat(KeyMatch.signAndVerify("SHA256withECDSA", ec.getPublic(), ec.getPrivate(), p))
          .isTrue();
      assertThat(KeyMatch.signAndVerify("SHA256withRSA", rsa.getPublic(), rsa.getPrivate(), p))
          .isTrue();
      assertThat(KeyMatch.signAndVerify("SHA256withECDSA", ec.getPublic(), otherEc.getPrivate(), p))
          .isFalse();
    }
  }

  private static KeyPair ec() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static KeyPair rsa() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  /**
   * A matching pair of a key type the check cannot use is not reported as a mismatch (a fresh-eyes
   * check: "tls.key is not the private key of tls.crt" for a matching Ed25519 pair).
   */
  @ParameterizedTest(name = "Conscrypt registered: {0}")
  @ValueSource(booleans = {false, true})
  void aKeyOfAnotherAlgorithmIsNamedNotCalledAMismatch(boolean conscrypt) throws Exception {
    if (conscrypt) {
      Security.addProvider(Conscrypt.newProvider());
    }
    KeyPair ed = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    assertThatThrownBy(() -> KeyMatch.belongTogether(ed.getPublic(), ed.getPrivate()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key algorithm EdDSA is not supported (only RSA and EC keys are)");
    KeyPairGenerator pssGenerator = KeyPairGenerator.getInstance("RSASSA-PSS");
    pssGenerator.initialize(2048);
    KeyPair pss = pssGenerator.generateKeyPair();
    assertThatThrownBy(() -> KeyMatch.belongTogether(pss.getPublic(), pss.getPrivate()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("RSASSA-PSS is not supported");
  }
}

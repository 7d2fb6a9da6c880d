package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.Security;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class TlsProviderTest {
  @Test
  void parsesTheFlagValuesCaseInsensitively() {
    assertThat(TlsProvider.parse("auto")).isEqualTo(TlsProvider.AUTO);
    assertThat(TlsProvider.parse("Conscrypt")).isEqualTo(TlsProvider.CONSCRYPT);
    assertThat(TlsProvider.parse(" jdk ")).isEqualTo(TlsProvider.JDK);
    assertThat(TlsProvider.JDK.flagValue()).isEqualTo("jdk");
  }

  @Test
  void refusesAnUnknownValueNamingTheAcceptedOnes() {
    assertThatThrownBy(() -> TlsProvider.parse("openssl"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown TLS provider 'openssl'; expected auto, conscrypt or jdk");
    assertThatThrownBy(() -> TlsProvider.parse("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void jdkResolvesToTheJdksProvider() {
    assertThat(TlsProvider.JDK.resolve()).isEqualTo(TlsProvider.JDK);
    assertThat(TlsProvider.JDK.describe()).isEqualTo("JDK SunJSSE");
  }

  /**
   * Conscrypt is registered last: the JVM's default SSLContext (the Kubernetes client of the
   * eviction warnings) stays the JDK's.
   */
  @Test
  void conscryptIsRegisteredLastAndOnlyServesWhoAsksForIt() throws Exception {
    assertThat(TlsProvider.CONSCRYPT.resolve()).isEqualTo(TlsProvider.CONSCRYPT);
    assertThat(TlsProvider.AUTO.resolve()).isEqualTo(TlsProvider.CONSCRYPT);
    assertThat(Security.getProviders()[0].getName()).isNotEqualTo("Conscrypt");
    assertThat(Security.getProvider("Conscrypt")).isNotNull();
    assertThat(SSLContext.getInstance("TLS").getProvider().getName()).isEqualTo("SunJSSE");
    assertThat(SSLContext.getInstance("TLS", "Conscrypt").getProvider().getName())
        .isEqualTo("Conscrypt");
    assertThat(TlsProvider.CONSCRYPT.describe())
        .matches("Conscrypt \\d+\\.\\d+\\.\\d+ \\(BoringSSL\\)");
  }
}

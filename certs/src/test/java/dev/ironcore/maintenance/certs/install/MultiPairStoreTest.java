package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MultiPairStoreTest {
  /** A store that only names itself. */
  private static ServingPairStore named(String name) {
    return new ServingPairStore() {
      @Override
      public Optional<StoredPair> read() {
        return Optional.empty();
      }

      @Override
      public void write(String certificatePem, String privateKeyPem) {}

      @Override
      public String describe() {
        return name;
      }
    };
  }

  /**
   * Fresh eyes (sessions 38 and 39): a two-cluster plan said {@code Secret ns/tls and Secret
   * ns/tls}, alike; each now names its cluster, numbered as the caBundle lines number them.
   */
  @Test
  void describesEachStoreWithItsCluster() {
    assertThat(
            new MultiPairStore(List.of(named("Secret ns/tls"), named("Secret ns/tls"))).describe())
        .isEqualTo("Secret ns/tls in cluster 1 and Secret ns/tls in cluster 2");
  }
}

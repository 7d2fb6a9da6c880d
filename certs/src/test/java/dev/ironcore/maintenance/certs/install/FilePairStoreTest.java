package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.IssuedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilePairStoreTest {
  @TempDir Path dir;
  private final CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));

  @Test
  void writesLikeTheKubeletReplacingRegularFilesAndKeepsOnlyTwoVersions() throws Exception {
    Files.writeString(dir.resolve("tls.crt"), "old regular file");
    Files.writeString(dir.resolve("tls.key"), "old regular key");
    FilePairStore store = new FilePairStore(dir);
    IssuedCertificate last = null;
    for (int i = 0; i < 3; i++) {
      last = ca.issueServing("s" + i, List.of("s"), List.of(), Duration.ofDays(1));
      store.write(last.certificatePem(), last.privateKeyPem());
    }
    assertThat(Files.readSymbolicLink(dir.resolve("tls.crt")))
        .isEqualTo(Path.of("..data", "tls.crt"));
    assertThat(Files.readSymbolicLink(dir.resolve("tls.key")))
        .isEqualTo(Path.of("..data", "tls.key"));
    assertThat(store.read())
        .contains(new ServingPairStore.StoredPair(last.certificatePem(), last.privateKeyPem()));
    try (Stream<Path> versions = Files.list(dir)) {
      assertThat(versions.filter(p -> p.getFileName().toString().matches("\\.\\.[0-9].*")))
          .hasSize(2);
    }
  }

  @Test
  void emptyDirectoryHoldsNothing() {
    assertThat(new FilePairStore(dir.resolve("absent")).read()).isEmpty();
  }

  /** Fresh eyes: a directory named tls.crt gave "cannot read ...; run again to continue". */
  @Test
  void aPairFileThatCannotBeReadIsRefusedWithItsCause() throws Exception {
    Files.createDirectories(dir.resolve("tls.crt"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new FilePairStore(dir).read())
        .isInstanceOf(Refusal.class)
        .hasMessageStartingWith("cannot read " + dir.resolve("tls.crt") + ": ")
        .hasMessageContaining("move it out of the way, then make rotate-certs writes a new pair");
  }
}

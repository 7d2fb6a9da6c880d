package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaFilesTest {
  @TempDir Path dir;
  private final CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));

  @Test
  void currentNextAndPromotion() {
    CaFiles files = new CaFiles(dir);
    assertThat(files.read(Instant.now(), true).current()).isEmpty();
    files.writeCurrent(ca);
    assertThat(files.read(Instant.now(), true).current().get().certificate())
        .isEqualTo(ca.certificate());
    CertificateAuthority next = CertificateAuthority.generate("next", Duration.ofDays(1));
    files.writeNext(next);
    CaFiles.State state = files.read(Instant.now(), true);
    assertThat(state.next().get().certificate()).isEqualTo(next.certificate());
    files.promoteNext(next);
    state = files.read(Instant.now(), true);
    assertThat(state.next()).isEmpty();
    assertThat(state.current().get().certificate()).isEqualTo(next.certificate());
  }

  /**
   * A lone ca-next.key is the end of a promotion only when it is the key promoted to ca.key; any
   * other is a pending CA whose certificate is gone, refused (fresh eyes, session 46: make
   * rotate-certs overwrote it without a word).
   */
  @Test
  void aLoneNextKeyIsALeftoverOnlyWhenItWasPromoted() throws Exception {
    CaFiles files = new CaFiles(dir);
    CertificateAuthority next = CertificateAuthority.generate("next", Duration.ofDays(1));
    files.writeCurrent(ca);
    files.writeNext(next);
    files.promoteNext(next);
    Files.writeString(dir.resolve("ca-next.key"), next.privateKeyPem()); // killed mid-promotion
    assertThat(files.read(Instant.now(), true).current().get().certificate())
        .isEqualTo(next.certificate());
    Files.writeString(
        dir.resolve("ca-next.key"),
        CertificateAuthority.generate("lost", Duration.ofDays(1)).privateKeyPem());
    assertThatThrownBy(() -> files.read(Instant.now(), true))
        .isInstanceOf(Refusal.class)
        .hasMessageContaining("ca-next.key exists without ")
        .hasMessageContaining("restore ");
  }

  @Test
  void refusesBadCaFilesWithOneLine() throws Exception {
    CaFiles files = new CaFiles(dir);
    files.writeCurrent(ca);
    Instant later = Instant.now().plus(Duration.ofDays(2));
    assertThatThrownBy(() -> files.read(later, true))
        .isInstanceOf(Refusal.class)
        .hasMessageContaining("expired");
    assertThat(files.read(later, false).current()).isPresent(); // rotate-certs replaces it
    Files.writeString(dir.resolve("ca.crt"), "");
    assertThatThrownBy(() -> files.read(Instant.now(), true))
        .isInstanceOf(Refusal.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    // fresh eyes: a second certificate (e.g. the CA pasted twice, or a chain) was ignored
    Files.writeString(
        dir.resolve("ca.crt"),
        ca.certificatePem()
            + CertificateAuthority.generate("other", Duration.ofDays(1)).certificatePem());
    assertThatThrownBy(() -> files.read(Instant.now(), true))
        .isInstanceOf(Refusal.class)
        .hasMessageContaining(
            "ca.crt: holds 2 certificates; a CA file holds its CA's certificate alone (the one the"
                + " key belongs to)")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    Files.delete(dir.resolve("ca.crt"));
    assertThatThrownBy(() -> files.read(Instant.now(), true))
        .hasMessageContaining("ca.crt is missing");
  }
}

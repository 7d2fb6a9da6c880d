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
   * A lone ca-next.key is not used: the end of a promotion (the key in ca.key) without a word, any
   * other with a note (fresh eyes, session 46: make rotate-certs overwrote it without a word), and
   * never refused, so that a rotation killed inside writeNext (key written, certificate not) is
   * resumed (review of that fix: refusing it stopped the rotation).
   */
  @Test
  void aLoneNextKeyIsNotUsedAndNamedUnlessItWasPromoted() throws Exception {
    CaFiles files = new CaFiles(dir);
    CertificateAuthority next = CertificateAuthority.generate("next", Duration.ofDays(1));
    files.writeCurrent(ca);
    files.writeNext(next);
    files.promoteNext(next);
    // killed mid-promotion; the key in another PEM form is the same key (fresh eyes: SEC1)
    Files.writeString(
        dir.resolve("ca-next.key"),
        dev.ironcore.maintenance.certs.Pem.encodeSec1(
            dev.ironcore.maintenance.certs.Pem.decodePrivateKey(next.privateKeyPem())));
    CaFiles.State promoted = files.read(Instant.now(), true);
    assertThat(promoted.current().get().certificate()).isEqualTo(next.certificate());
    assertThat(promoted.next()).isEmpty();
    assertThat(promoted.notes()).isEmpty();
    Files.writeString(
        dir.resolve("ca-next.key"),
        CertificateAuthority.generate("lost", Duration.ofDays(1)).privateKeyPem());
    CaFiles.State stray = files.read(Instant.now(), true);
    assertThat(stray.next()).isEmpty();
    assertThat(stray.current().get().certificate()).isEqualTo(next.certificate());
    assertThat(stray.notes())
        .singleElement()
        .asString()
        .contains("ca-next.key has no ca-next.crt beside it and is not the key in ca.key")
        .contains("not used");
    Files.delete(dir.resolve("ca.crt"));
    Files.delete(dir.resolve("ca.key"));
    assertThat(files.read(Instant.now(), false).notes()).as("no CA at all yet").hasSize(1);
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

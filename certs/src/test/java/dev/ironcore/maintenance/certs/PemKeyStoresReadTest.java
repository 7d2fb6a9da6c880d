package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PEM files are read up to a cap: an endless or huge file is refused, not read forever. */
class PemKeyStoresReadTest {
  @TempDir Path dir;

  /** A device never ends, a FIFO's open blocks until a writer comes: neither is read. */
  @Test
  void aFileThatIsNotARegularFileIsRefusedUnread() throws Exception {
    Path zero = Path.of("/dev/zero");
    assumeThat(Files.isReadable(zero)).isTrue();
    assertThatThrownBy(() -> PemKeyStores.readBytes(zero))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("cannot read /dev/zero: not a regular file (a FIFO, a device or a socket)");
    Path fifo = dir.resolve("tls.crt");
    assumeThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    assertThatThrownBy(() -> PemKeyStores.readBytes(fifo))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageEndingWith("not a regular file (a FIFO, a device or a socket)");
  }

  @Test
  void aFileUpToTheCapIsRead() throws Exception {
    Path full = Files.write(dir.resolve("full.pem"), new byte[PemKeyStores.MAX_BYTES]);
    assertThat(PemKeyStores.readBytes(full)).hasSize(PemKeyStores.MAX_BYTES);
    Files.write(dir.resolve("big.pem"), new byte[PemKeyStores.MAX_BYTES + 1]);
    assertThatThrownBy(() -> PemKeyStores.readBytes(dir.resolve("big.pem")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageEndingWith(
            ": larger than 4 MiB, too large for a PEM file (a Secret holds at most 1 MiB)");
    assertThatThrownBy(() -> PemKeyStores.readBytes(dir))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("cannot read " + dir + ": ");
  }
}

package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key file is owner-only from its creation on: watched while a large one is being written, it is
 * never seen with other permissions (fresh eyes' strace: created 0644, written, then restricted).
 */
class PrivateFilesTest {
  @TempDir Path dir;

  @Test
  void aNewKeyFileIsOwnerOnlyWhileItIsWritten() throws Exception {
    Path key = dir.resolve("ca-next.key.tmp");
    String big = "k".repeat(64 * 1024 * 1024);
    CompletableFuture<Void> writing =
        CompletableFuture.runAsync(
            () -> {
              try {
                PrivateFiles.write(key, big);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    Set<Set<PosixFilePermission>> seen = new HashSet<>();
    while (!writing.isDone()) {
      if (Files.exists(key, LinkOption.NOFOLLOW_LINKS)) {
        try {
          seen.add(Files.getPosixFilePermissions(key, LinkOption.NOFOLLOW_LINKS));
        } catch (java.nio.file.NoSuchFileException notYet) {
          // created between the two calls' view of it: look again
        }
      }
    }
    writing.get();
    seen.add(Files.getPosixFilePermissions(key));
    assertThat(seen).containsExactly(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.size(key)).isEqualTo(big.length());
  }

  @Test
  void anExistingFileIsRestrictedBeforeItIsOverwritten() throws Exception {
    Path key = dir.resolve("tls.key");
    Files.writeString(key, "old key");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    PrivateFiles.write(key, "new key");
    assertThat(Files.readString(key)).isEqualTo("new key");
    assertThat(Files.getPosixFilePermissions(key))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
  }
}

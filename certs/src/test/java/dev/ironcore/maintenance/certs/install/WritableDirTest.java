package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WritableDirTest {
  @TempDir Path dir;

  @Test
  void aWritableDirectoryAndOneThatCanBeCreatedPassAndNothingIsLeft() throws Exception {
    WritableDir.require(dir, "the CA directory");
    WritableDir.require(dir.resolve("a/b"), "the CA directory");
    try (var files = Files.list(dir)) {
      org.assertj.core.api.Assertions.assertThat(files).isEmpty();
    }
  }

  /**
   * A directory {@code access(2)} calls writable that takes no file (sysfs, for root): refused
   * before anything changes, not at the first write.
   */
  @Test
  void aDirectoryThatTakesNoFileIsRefused() {
    Path sys = Path.of("/sys/kernel");
    assumeThat(Files.isDirectory(sys) && Files.isWritable(sys))
        .as("/sys/kernel looks writable")
        .isTrue();
    assertThatThrownBy(() -> WritableDir.require(sys, "the CA directory"))
        .isInstanceOf(Refusal.class)
        .hasMessageStartingWith("the CA directory /sys/kernel cannot be written: ");
    assertThatThrownBy(() -> WritableDir.require(sys.resolve("ca"), "the CA directory"))
        .isInstanceOf(Refusal.class)
        .hasMessageStartingWith(
            "the CA directory /sys/kernel/ca cannot be created in /sys/kernel: ");
  }
}

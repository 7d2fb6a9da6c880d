package dev.ironcore.maintenance.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Temporary folders of the tests (keys and certificates under /tmp) that go when they are done. */
public final class TempDirs {
  private TempDirs() {}

  /**
   * @param prefix the folder name's start, e.g. {@code "webhook-e2e-certs"}
   * @return a new empty folder under {@code java.io.tmpdir}
   * @throws UncheckedIOException when it cannot be made
   */
  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Deletes {@code dir} and everything below it, quietly: called as a test or its JVM ends, where a
   * leftover file in /tmp is all a failure would lose.
   */
  public static void delete(Path dir) {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dir)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (IOException e) {
      return;
    }
    for (Path p : paths) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        // see above
      }
    }
  }
}

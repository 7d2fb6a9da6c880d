package dev.ironcore.maintenance.certs.install;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Whether a directory the tool writes can be written, told before anything changes. */
final class WritableDir {
  private WritableDir() {}

  /**
   * Checks that {@code dir} is a writable directory, or can be created: its nearest existing
   * ancestor is a writable directory (permissions and read-only mounts, as {@code access(2)}
   * tells), into which an empty file can be written (and is deleted at once): {@code access(2)}
   * answers yes to root for a directory of {@code /sys} that takes no file (fresh eyes, session 44:
   * {@code DRY_RUN=true CERTS_DIR=/sys/kernel} passed, the real run then failed at its first
   * write).
   *
   * @param what e.g. {@code the CA directory}, for the message
   * @throws Refusal when it is not
   */
  static void require(Path dir, String what) {
    Path existing = dir.toAbsolutePath();
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null || !Files.isDirectory(existing)) {
      throw new Refusal(
          what + " " + dir + " cannot be created: " + existing + " is not a directory");
    }
    if (!Files.isWritable(existing)) {
      throw new Refusal(
          what
              + " "
              + dir
              + (existing.equals(dir.toAbsolutePath())
                  ? " is not writable"
                  : " cannot be created: " + existing + " is not writable")
              + " (permissions, or a read-only file system)");
    }
    try {
      Files.delete(Files.createTempFile(existing, ".write-check-", ".tmp"));
    } catch (IOException e) {
      throw new Refusal(
          what
              + " "
              + dir
              + (existing.equals(dir.toAbsolutePath())
                  ? " cannot be written"
                  : " cannot be created in " + existing)
              + ": "
              + why(e));
    }
  }

  /** The cause of a failed write in a few words, e.g. {@code Read-only file system}. */
  static String why(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return String.valueOf(e.getMessage());
  }
}

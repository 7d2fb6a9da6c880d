package dev.ironcore.maintenance.certs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Files that hold a private key ({@code tls.key}, {@code ca.key}): owner-only ({@code 0600}) before
 * a byte of the key is in them, where the file system has POSIX permissions. Fresh eyes (strace):
 * they were created with the process's default mode (0644 under the usual umask), written, and only
 * then restricted, and a rotation killed in between left a world-readable {@code ca-next.key.tmp}.
 */
public final class PrivateFiles {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /**
   * Writes {@code text} (UTF-8) to {@code file}: a new file is created owner-only; an existing one
   * is made owner-only first, then overwritten. The parent directory must exist.
   *
   * @throws IOException when the file cannot be created, restricted or written
   */
  public static void write(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    boolean posix = Files.getFileStore(parent).supportsFileAttributeView("posix");
    ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      if (posix) {
        Files.setPosixFilePermissions(file, OWNER_ONLY);
      }
      Files.write(file, bytes.array());
      return;
    }
    FileAttribute<?>[] attributes =
        posix
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
            : new FileAttribute<?>[0];
    try (SeekableByteChannel out =
        Files.newByteChannel(
            file,
            EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
            attributes)) {
      while (bytes.hasRemaining()) {
        out.write(bytes);
      }
    }
  }
}

package dev.ironcore.maintenance.certs.install;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One {@code make certs} or {@code make rotate-certs} at a time per CA directory: an exclusive lock
 * on {@code <ca-dir>.lock} beside it, held until {@link #close()} (the operating system drops it
 * when the process ends, also on {@code kill -9}). Two rotations at once would both write {@code
 * ca-next.*}: one finished, the other waited for a certificate that never came (fresh eyes). Best
 * effort where the lock file cannot be created (the directory checks refuse that case).
 */
final class CaDirLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private CaDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** The lock file of {@code caDir}. */
  static Path file(Path caDir) {
    Path abs = caDir.toAbsolutePath().normalize();
    return abs.resolveSibling(abs.getFileName() + ".lock");
  }

  /**
   * @throws Refusal when another process holds it
   */
  static CaDirLock acquire(Path caDir) {
    Path file = file(caDir);
    FileChannel channel;
    try {
      Files.createDirectories(file.getParent());
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      return new CaDirLock(null, null);
    }
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (IOException e) {
      closeQuietly(channel);
      return new CaDirLock(null, null);
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this process (another run in the same JVM)
    }
    if (lock == null) {
      closeQuietly(channel);
      throw new Refusal(
          "another make certs or make rotate-certs is working with the CA directory "
              + caDir
              + " (it holds "
              + file
              + "); wait until it is done, then run again");
    }
    return new CaDirLock(channel, lock);
  }

  @Override
  public void close() {
    try {
      if (lock != null) {
        lock.release();
      }
    } catch (IOException ignored) {
      // closing the channel releases it too
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }
  }
}

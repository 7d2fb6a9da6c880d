package dev.ironcore.maintenance.certs.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The serving pair as PEM files {@code tls.crt} and {@code tls.key} in a directory, laid out as the
 * kubelet lays out a mounted Secret: each file is a symlink into {@code ..data/}, and {@code
 * ..data} is a symlink to a timestamped directory holding both files. A write fills a new
 * timestamped directory and swaps {@code ..data} with one atomic rename, so a reader never sees a
 * new certificate with an old key. Regular files left by older tools are replaced by the symlinks
 * on the first write.
 */
public final class FilePairStore implements ServingPairStore {
  private static final String DATA = "..data";
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyy_MM_dd_HH_mm_ss.SSSSSSSSS");

  private final Path dir;

  /**
   * @param dir directory of {@code tls.crt} and {@code tls.key} (created on first write)
   */
  public FilePairStore(Path dir) {
    this.dir = dir.toAbsolutePath();
  }

  /** {@code dir/tls.crt}. */
  public Path certFile() {
    return dir.resolve("tls.crt");
  }

  /** {@code dir/tls.key}. */
  public Path keyFile() {
    return dir.resolve("tls.key");
  }

  @Override
  public Optional<StoredPair> read() {
    String cert = readIfExists(certFile());
    String key = readIfExists(keyFile());
    if (cert == null && key == null) {
      return Optional.empty();
    }
    return Optional.of(new StoredPair(cert, key));
  }

  @Override
  public void requireWritable() {
    WritableDir.require(dir, "the serving pair's directory");
  }

  @Override
  public void write(String certificatePem, String privateKeyPem) {
    try {
      Files.createDirectories(dir);
      String stamp = ".." + LocalDateTime.now(ZoneOffset.UTC).format(STAMP);
      Path version = Files.createDirectory(dir.resolve(stamp));
      Files.writeString(version.resolve("tls.crt"), certificatePem, StandardCharsets.UTF_8);
      dev.ironcore.maintenance.certs.PrivateFiles.write(version.resolve("tls.key"), privateKeyPem);
      Path previous =
          Files.isSymbolicLink(dir.resolve(DATA))
              ? Files.readSymbolicLink(dir.resolve(DATA))
              : null;
      swapLink(DATA, Path.of(stamp));
      for (String name : new String[] {"tls.crt", "tls.key"}) {
        Path target = Path.of(DATA, name);
        Path file = dir.resolve(name);
        if (!Files.isSymbolicLink(file) || !Files.readSymbolicLink(file).equals(target)) {
          swapLink(name, target);
        }
      }
      removeOldVersions(stamp, previous);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the serving pair into " + dir + ": " + WritableDir.why(e), e);
    }
  }

  @Override
  public String describe() {
    return "files " + certFile() + ", " + keyFile();
  }

  /** Points {@code dir/name} at {@code target} with one rename of a fresh symlink over it. */
  private void swapLink(String name, Path target) throws IOException {
    Path tmp = dir.resolve(name + "_tmp");
    Files.deleteIfExists(tmp);
    Files.createSymbolicLink(tmp, target);
    Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Deletes timestamped directories other than the current one and the one just replaced. */
  private void removeOldVersions(String current, Path previous) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "..[0-9]*")) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        boolean keep =
            name.equals(current) || (previous != null && name.equals(previous.toString()));
        if (!keep && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          deleteTree(p);
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String readIfExists(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : null;
    } catch (IOException e) {
      // fresh eyes: a directory named tls.crt gave "cannot read ...; run again to continue"
      throw new Refusal(
          "cannot read "
              + file
              + ": "
              + e.getMessage()
              + "; move it out of the way, then make rotate-certs writes a new pair");
    }
  }
}

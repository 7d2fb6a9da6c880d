package dev.ironcore.maintenance.controller.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Options for a controller JVM that a test starts many times ({@link RandomKillPointsE2ETest}): C1
 * only, serial GC, and an application class-data sharing archive (AppCDS) that a first, cleanly
 * stopped process writes ({@link #dumping}) and the later ones map ({@link #options}), which saves
 * about a second of class loading per start on a loaded machine. CDS archives classes from jars
 * only, so the controller's own classes are put into a jar and the class path is the production one
 * ({@code target/production-classpath.txt}); where that is not available (a directory on it, no
 * listing), the processes run without an archive.
 */
final class FastStartJvm {
  private static final List<String> BASE =
      List.of(
          "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xlog:cds=off", "-Xlog:cds+dynamic=off");

  private final String classPath;
  private final Path archive;

  private FastStartJvm(String classPath, Path archive) {
    this.classPath = classPath;
    this.archive = archive;
  }

  /**
   * @param dir where the jar of the controller's classes and the archive are written
   */
  static FastStartJvm prepare(Path dir) {
    Path listing = Path.of("target", "production-classpath.txt");
    Path classes = Path.of("target", "classes");
    try {
      if (!Files.isRegularFile(listing) || !Files.isDirectory(classes)) {
        return new FastStartJvm(null, null);
      }
      List<String> entries =
          new ArrayList<>(
              Arrays.asList(Files.readString(listing).strip().split(java.io.File.pathSeparator)));
      if (entries.stream().anyMatch(e -> Files.isDirectory(Path.of(e)))) {
        return new FastStartJvm(null, null);
      }
      Path jar = dir.resolve("controller-classes.jar");
      writeJar(classes, jar);
      entries.add(0, jar.toAbsolutePath().toString());
      Path archive = dir.resolve("controller.jsa");
      Files.deleteIfExists(archive);
      return new FastStartJvm(String.join(java.io.File.pathSeparator, entries), archive);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Options of the first process: it writes the archive when it exits cleanly (SIGTERM). */
  List<String> dumping() {
    if (classPath == null) {
      return BASE;
    }
    List<String> o = new ArrayList<>(BASE);
    o.addAll(List.of("-cp", classPath, "-XX:ArchiveClassesAtExit=" + archive.toAbsolutePath()));
    return o;
  }

  /** Options of the later processes: with the archive once it exists. */
  List<String> options() {
    if (classPath == null) {
      return BASE;
    }
    List<String> o = new ArrayList<>(BASE);
    o.addAll(List.of("-cp", classPath));
    if (Files.isRegularFile(archive)) {
      o.add("-XX:SharedArchiveFile=" + archive.toAbsolutePath());
    }
    return o;
  }

  /** Whether the archive was written. */
  boolean archived() {
    return archive != null && Files.isRegularFile(archive);
  }

  private static void writeJar(Path classes, Path jar) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, j);
        j.closeEntry();
      }
    }
  }
}

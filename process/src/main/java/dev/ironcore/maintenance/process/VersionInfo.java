package dev.ironcore.maintenance.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * Version and git commit of this build, read from {@code version.properties} that Maven writes at
 * build time; {@code unknown} for a value the build could not fill (e.g. no {@code .git}).
 *
 * @param version the Maven project version, e.g. {@code 0.1.0-SNAPSHOT}
 * @param commit abbreviated commit id, with {@code -dirty} when the tree had local changes
 */
public record VersionInfo(String version, String commit) {
  private static final String RESOURCE = "/dev/ironcore/maintenance/process/version.properties";

  /** This build's version. */
  public static VersionInfo current() {
    Properties p = new Properties();
    try (InputStream in = VersionInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String commit = filled(p.getProperty("commit"));
    if (!"unknown".equals(commit) && "true".equals(p.getProperty("dirty"))) {
      commit += "-dirty";
    }
    return new VersionInfo(filled(p.getProperty("version")), commit);
  }

  private static String filled(String value) {
    return value == null || value.isBlank() || value.contains("${") ? "unknown" : value.trim();
  }

  /** E.g. {@code ironcore-maintenance-controller 0.1.0 (commit 1a2b3c4d5e6f)}. */
  public String line(String program) {
    return program + " " + version + " (commit " + commit + ")";
  }

  /** Picocli {@code --version} of a command: its name, version and commit. */
  public static final class Provider implements CommandLine.IVersionProvider {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public String[] getVersion() {
      return new String[] {current().line(spec.qualifiedName())};
    }
  }
}

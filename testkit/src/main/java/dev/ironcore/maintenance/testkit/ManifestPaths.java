package dev.ironcore.maintenance.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the repository's {@code manifests/} directory from a module's working directory. */
public final class ManifestPaths {

  private ManifestPaths() {}

  /**
   * The overlay {@code manifests/<name>} (e.g. {@code "local"}, {@code "default"}, {@code "crds"}),
   * searched upwards from system property {@code basedir} (set by Maven) or the working directory.
   *
   * @throws IllegalStateException if no ancestor has {@code manifests/<name>/kustomization.yaml}
   */
  public static Path overlay(String name) {
    Path start =
        Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
    for (Path d = start; d != null; d = d.getParent()) {
      Path candidate = d.resolve("manifests").resolve(name);
      if (Files.isRegularFile(candidate.resolve("kustomization.yaml"))) {
        return candidate;
      }
    }
    throw new IllegalStateException("no manifests/" + name + "/kustomization.yaml above " + start);
  }
}

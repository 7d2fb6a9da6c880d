package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The production controller carries no simulator: its runtime classpath (this module's classes plus
 * the runtime dependencies Maven resolves, written to {@code target/production-classpath.txt} at
 * build time) holds no class of the devtools module, and its command line rejects the simulators'
 * flags as unknown.
 */
class ProductionClasspathTest {

  /** Simple names of the local-only classes that live in devtools. */
  private static final List<String> LOCAL_ONLY =
      List.of("PoolletSimulator", "CapiStandIn", "SimulatorsMain", "DrainDemo", "DemoObjects");

  @Test
  void theSimulatorFlagsAreUnknownToTheProductionController() {
    for (String flag :
        List.of("--simulate-poollet", "--simulate-capi", "--poollet-shutdown-delay=2s")) {
      assertThatThrownBy(() -> new CommandLine(new ControllerMain()).parseArgs(flag))
          .as(flag)
          .isInstanceOf(CommandLine.UnmatchedArgumentException.class)
          .hasMessageContaining("Unknown option");
    }
  }

  @Test
  void noSimulatorOrDemoClassIsOnTheProductionClasspath() throws IOException {
    Path listing = Path.of("target", "production-classpath.txt");
    assertThat(listing).exists();
    List<Path> entries = new ArrayList<>();
    entries.add(Path.of("target", "classes"));
    for (String e : Files.readString(listing).trim().split(java.io.File.pathSeparator)) {
      if (!e.isBlank()) {
        entries.add(Path.of(e));
      }
    }
    assertThat(entries)
        .as("no devtools or testkit artifact")
        .noneMatch(p -> p.toString().matches(".*[/\\\\](devtools|testkit)[/\\\\-].*"));

    List<String> classes = new ArrayList<>();
    for (Path entry : entries) {
      classes.addAll(classNames(entry));
    }
    assertThat(classes)
        .as("the scan sees the real classpath")
        .contains(
            "dev/ironcore/maintenance/controller/ControllerMain.class",
            "dev/ironcore/maintenance/api/Names.class",
            "io/fabric8/kubernetes/client/KubernetesClient.class");
    assertThat(classes)
        .noneMatch(c -> c.startsWith("dev/ironcore/maintenance/devtools/"))
        .noneMatch(c -> c.startsWith("dev/ironcore/maintenance/testkit/"))
        .noneMatch(
            c ->
                c.startsWith("dev/ironcore/maintenance/")
                    && LOCAL_ONLY.stream().anyMatch(n -> c.endsWith("/" + n + ".class")));
  }

  @Test
  void theTestClasspathCannotLoadASimulatorEither() {
    assertThatThrownBy(
            () -> Class.forName("dev.ironcore.maintenance.devtools.sim.PoolletSimulator"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  private static List<String> classNames(Path entry) throws IOException {
    if (Files.isDirectory(entry)) {
      try (Stream<Path> files = Files.walk(entry)) {
        return files
            .filter(f -> f.toString().endsWith(".class"))
            .map(f -> entry.relativize(f).toString().replace('\\', '/'))
            .toList();
      }
    }
    if (!entry.toString().endsWith(".jar")) {
      return List.of();
    }
    try (JarFile jar = new JarFile(entry.toFile())) {
      return jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class")).toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}

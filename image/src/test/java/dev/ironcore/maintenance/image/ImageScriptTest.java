package dev.ironcore.maintenance.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make image} ({@code hack/image.sh}, the real script, in a scratch checkout, with a
 * stand-in for Maven that replays Maven's recorded output of the Jib call, {@code
 * src/test/resources/make-image}): the jars, the Java runtime and the AOT caches are built in a
 * Maven call of their own, before and without Jib; when the image cannot be built, ONE line with
 * the reason, Maven's whole output in {@code image/target/jib.log}, exit code 1.
 */
class ImageScriptTest {
  private static final Path LOGS = Path.of("src/test/resources/make-image").toAbsolutePath();
  private static final String FULL_OUTPUT = " (full output: image/target/jib.log)\n";

  @TempDir Path checkout;
  Path calls;

  private record Run(int exitCode, String out, String err) {}

  @BeforeEach
  void copyScript() throws IOException {
    Path repo = Path.of("..").toAbsolutePath().normalize();
    Files.createDirectories(checkout.resolve("hack"));
    Files.copy(repo.resolve("hack/image.sh"), checkout.resolve("hack/image.sh"));
    // the control plane for the controller's AOT training: "built"
    Files.writeString(checkout.resolve("hack/build-controlplane.sh"), "echo /controlplane\n");
    checkout.resolve("hack/build-controlplane.sh").toFile().setExecutable(true);
    calls = checkout.resolve("mvn-calls");
    // Maven: records its arguments; the Jib call prints JIB_LOG and fails (unless JIB_LOG=ok), the
    // package call prints PACKAGE_LOG (if set) and fails with it
    Files.writeString(
        checkout.resolve("mvn"),
        """
        echo "$*" >>"$CALLS"
        case " $* " in
          *" jib:"*) [ "$JIB_LOG" = ok ] && { echo '[INFO] BUILD SUCCESS (jib)'; exit 0; }
                     cat "$JIB_LOG"; exit 1 ;;
          *) [ -n "${PACKAGE_LOG:-}" ] && { cat "$PACKAGE_LOG"; exit 1; }
             echo '[INFO] java-runtime: image/target/jvm up to date'; echo '[INFO] BUILD SUCCESS' ;;
        esac
        """);
  }

  private Run makeImage(Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", checkout.resolve("hack/image.sh").toString());
    pb.environment().put("MVN", "bash " + checkout.resolve("mvn") + " -o");
    pb.environment().put("CALLS", calls.toString());
    pb.environment().remove("IMAGE");
    pb.environment().remove("PUSH");
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(
        p.exitValue(),
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  private Run jibFails(String recordedLog) throws Exception {
    return makeImage(Map.of("JIB_LOG", LOGS.resolve(recordedLog).toString()));
  }

  /** Maven's calls: first the package step alone, then the Jib goal. */
  private void assertPackageThenJib(String goal) throws IOException {
    List<String> mvn = Files.readAllLines(calls);
    assertThat(mvn).hasSize(2);
    assertThat(mvn.get(0))
        .startsWith("-o -B -DskipTests -pl image -am package -Dimage=")
        .doesNotContain("jib:")
        .endsWith(" -Dcontrolplane.dir=/controlplane");
    assertThat(mvn.get(1)).contains(" package " + goal + " -Dimage=");
  }

  /**
   * Tester: {@code MVN='mvn -o' make image} where ~/.m2 had no Jib plugin said only "No plugin
   * found for prefix 'jib'" and built nothing (one Maven call, which fails before any project
   * builds).
   */
  @Test
  void theJibPluginNeverDownloadedWhileOfflineIsNamedAndTheRuntimeIsBuiltFirst() throws Exception {
    Run run = jibFails("jib-plugin-not-downloaded-offline.log");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "make image: cannot build ironcore-maintenance:latest: the Jib Maven plugin"
                + " (com.google.cloud.tools:jib-maven-plugin:jar:3.5.2) is not in the local Maven"
                + " repository and Maven runs offline: run make image once online (without -o),"
                + " which downloads it; the jars, the Java runtime and both AOT caches are built"
                + " (image/target/jvm)"
                + FULL_OUTPUT);
    assertPackageThenJib("jib:buildTar");
    // both calls' output in the one log
    assertThat(Files.readString(checkout.resolve("image/target/jib.log")))
        .contains("java-runtime: image/target/jvm up to date")
        .contains("No plugin found for prefix 'jib'");
  }

  @Test
  void aLibraryOfTheJibPluginNeverDownloadedWhileOfflineIsNamed() throws Exception {
    Run run = jibFails("jib-plugin-library-not-downloaded-offline.log");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "make image: cannot build ironcore-maintenance:latest:"
                + " com.google.cloud.tools:jib-build-plan:jar:0.4.0 (needed by the Jib Maven plugin)"
                + " is not in the local Maven repository and Maven runs offline: run make image once"
                + " online (without -o), which downloads it; the jars, the Java runtime and both AOT"
                + " caches are built (image/target/jvm)"
                + FULL_OUTPUT);
    assertPackageThenJib("jib:buildTar");
  }

  @Test
  void aBaseImageThatCannotBeFetchedIsNamed() throws Exception {
    Run run = jibFails("base-image-offline.log");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "make image: cannot build ironcore-maintenance:latest: base image"
                + " gcr.io/distroless/base-debian12:nonroot could not be fetched (Cannot run Jib in"
                + " offline mode; gcr.io/distroless/base-debian12:nonroot not found in local Jib"
                + " cache)"
                + FULL_OUTPUT);
    assertPackageThenJib("jib:buildTar");
  }

  /** A failed package step: its reason, and no Jib call. */
  @Test
  void aFailedPackageStepGivesItsReasonAndNoJibCallFollows() throws Exception {
    Path log = checkout.resolve("package.log");
    Files.writeString(
        log,
        """
        [INFO] BUILD FAILURE
        [ERROR] Failed to execute goal org.codehaus.mojo:exec-maven-plugin:3.5.0:exec (java-runtime) \
        on project image: Command execution failed.: Process exited with an error: 1 (Exit value: 1) \
        -> [Help 1]
        [ERROR]\s
        """);
    Run run = makeImage(Map.of("PACKAGE_LOG", log.toString(), "JIB_LOG", "ok"));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "make image: cannot build ironcore-maintenance:latest: Command execution failed.:"
                + " Process exited with an error: 1 (Exit value: 1)"
                + FULL_OUTPUT);
    assertThat(Files.readAllLines(calls)).hasSize(1);
  }

  @Test
  void aBuiltImageIsReportedOnStdout() throws Exception {
    Run run = makeImage(Map.of("JIB_LOG", "ok"));
    assertThat(run).isEqualTo(new Run(0, run.out(), ""));
    assertThat(run.out())
        .startsWith(
            "make image: ironcore-maintenance:latest as OCI tarball image/target/jib-image.tar");
    assertPackageThenJib("jib:buildTar");
    run = makeImage(Map.of("JIB_LOG", "ok", "PUSH", "true", "IMAGE", "registry.example/x:1"));
    assertThat(run).isEqualTo(new Run(0, "make image: pushed registry.example/x:1\n", ""));
    assertThat(Files.readAllLines(calls).get(3))
        .contains(" package jib:build -Dimage=registry.example/x:1 ");
  }

  /**
   * PUSH=yes built the tarball and said so, pushing nothing; refused now, before anything is built,
   * worded as make run's DEMO and make certs' DRY_RUN. Empty is the default, false.
   */
  @Test
  void pushTakesTrueOrFalseOnly() throws Exception {
    for (String push : new String[] {"yes", "1", "TRUE"}) {
      assertThat(makeImage(Map.of("JIB_LOG", "ok", "PUSH", push)))
          .isEqualTo(new Run(1, "", "make image: PUSH='" + push + "': use true or false\n"));
      assertThat(calls).as("no Maven call").doesNotExist();
    }
    assertThat(makeImage(Map.of("JIB_LOG", "ok", "PUSH", "")).out())
        .startsWith(
            "make image: ironcore-maintenance:latest as OCI tarball image/target/jib-image.tar");
  }
}

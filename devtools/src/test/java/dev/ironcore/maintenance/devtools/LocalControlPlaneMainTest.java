package dev.ironcore.maintenance.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.JavaMain;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make run}'s control plane process (etcd + kube-apiserver under {@link
 * LocalControlPlaneMain}): when etcd dies, the process ends with exit code 1 and says which child
 * died, with its exit code and the last lines of its log, so {@code make run} stops everything; the
 * pid files it wrote for etcd and kube-apiserver name those children and are gone afterwards.
 */
class LocalControlPlaneMainTest {
  @TempDir Path work;

  @Test
  void etcdDyingEndsTheControlPlaneProcessNamingItsExitCodeAndLog() throws Exception {
    Path out = work.resolve("controlplane.out");
    Process main =
        JavaMain.processBuilder(
                LocalControlPlaneMain.class,
                "--bin-dir",
                SharedControlPlane.binDir().toString(),
                "--work-dir",
                work.toString())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    try {
      Awaitility.await()
          .atMost(Duration.ofSeconds(180))
          .until(() -> Files.exists(work.resolve("ready")) || !main.isAlive());
      assertThat(main.isAlive()).as("started; output: %s", Files.readString(out)).isTrue();
      List<ProcessHandle> children = main.toHandle().children().toList();
      ProcessHandle etcd =
          children.stream()
              .filter(c -> c.info().command().orElse("").endsWith("/etcd"))
              .findFirst()
              .orElseThrow();
      ProcessHandle apiServer =
          children.stream()
              .filter(c -> c.info().command().orElse("").endsWith("/kube-apiserver"))
              .findFirst()
              .orElseThrow();
      assertThat(Files.readString(work.resolve("etcd.pid")).trim()).isEqualTo("" + etcd.pid());
      assertThat(Files.readString(work.resolve("kube-apiserver.pid")).trim())
          .isEqualTo("" + apiServer.pid());

      etcd.destroyForcibly(); // SIGKILL, as the OOM killer would

      assertThat(main.waitFor(120, TimeUnit.SECONDS)).as("the process ends on its own").isTrue();
      assertThat(main.exitValue()).isEqualTo(1);
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !apiServer.isAlive());
      assertThat(Files.readString(out))
          .contains(
              "LocalControlPlaneMain: etcd exited with code 137; last lines of "
                  + work.resolve("etcd.log")
                  + ":\n$ ")
          .doesNotContain("Exception");
      assertThat(work.resolve("etcd.pid")).as("deleted on stop").doesNotExist();
      assertThat(work.resolve("kube-apiserver.pid")).doesNotExist();
    } finally {
      main.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      main.destroyForcibly();
    }
  }
}

package dev.ironcore.maintenance.devtools;

import dev.ironcore.maintenance.testkit.LocalControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Command line: runs a {@link LocalControlPlane} until SIGTERM or Ctrl-C.
 *
 * <pre>
 * LocalControlPlaneMain --bin-dir DIR --work-dir DIR
 * </pre>
 *
 * Once ready it writes {@code WORK/kubeconfig}, {@code WORK/etcd.pid} and {@code
 * WORK/kube-apiserver.pid} (to pause or kill one by hand, e.g. {@code kill -STOP}), then {@code
 * WORK/ready} (holding the API server URL); the pid files and {@code ready} are deleted again on
 * stop, so scripts can wait for it. It prints {@code export KUBECONFIG=...} on stdout. {@code
 * --help} prints the usage. Exit code 2 on bad arguments, 1 if the start fails or when etcd or
 * kube-apiserver ends on its own (the control plane is stopped; stderr names the process, its exit
 * code and the last lines of its log).
 */
public final class LocalControlPlaneMain {

  private LocalControlPlaneMain() {}

  private static final String USAGE = "usage: LocalControlPlaneMain --bin-dir DIR --work-dir DIR";

  public static void main(String[] args) throws InterruptedException {
    if (Flags.wantsHelp(args)) {
      System.out.println(USAGE);
      return;
    }
    Path binDir;
    Path workDir;
    try {
      Flags f = Flags.parse(args, Set.of("bin-dir", "work-dir"));
      binDir = Path.of(f.required("bin-dir"));
      workDir = Path.of(f.required("work-dir")).toAbsolutePath();
    } catch (IllegalArgumentException e) {
      System.err.println("LocalControlPlaneMain: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    Path ready = workDir.resolve("ready");
    deleteQuietly(ready);
    List<Path> pidFiles =
        List.of(workDir.resolve("etcd.pid"), workDir.resolve("kube-apiserver.pid"));
    pidFiles.forEach(LocalControlPlaneMain::deleteQuietly);
    LocalControlPlane cp;
    try {
      cp = LocalControlPlane.start(binDir, workDir);
    } catch (RuntimeException e) {
      System.err.println("LocalControlPlaneMain: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  deleteQuietly(ready);
                  pidFiles.forEach(LocalControlPlaneMain::deleteQuietly);
                  cp.close();
                  stopped.countDown();
                },
                "local-control-plane-main-stop"));
    try {
      for (var pid : cp.pids().entrySet()) {
        Files.writeString(workDir.resolve(pid.getKey() + ".pid"), pid.getValue() + "\n");
      }
      Files.writeString(ready, cp.apiServerUrl() + "\n");
    } catch (IOException e) {
      System.err.println("LocalControlPlaneMain: cannot write " + ready + ": " + e);
    }
    System.out.println(
        "# control plane at "
            + cp.apiServerUrl()
            + " (started in "
            + cp.startupTime().toMillis()
            + " ms; logs in "
            + workDir
            + ")");
    System.out.println("export KUBECONFIG=" + cp.kubeconfig());
    System.out.flush();
    // etcd or kube-apiserver ending on its own ends this process too, so make run notices
    while (!stopped.await(1, TimeUnit.SECONDS)) {
      Optional<String> exited = cp.exitedProcess();
      if (exited.isPresent()) {
        System.err.println("LocalControlPlaneMain: " + exited.get());
        System.exit(1);
      }
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // best effort
    }
  }
}

package dev.ironcore.maintenance.controller.e2e;

import dev.ironcore.maintenance.controller.ControllerMain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The controller as a separate OS process ({@link ControllerMain}), so a test can kill it with
 * SIGKILL at any point, as a crash or an OOM kill would, and start a fresh one.
 */
final class ControllerProcess implements AutoCloseable {
  private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

  private final Process process;
  private final int healthPort;
  private final int metricsPort;

  private ControllerProcess(Process process, int healthPort, int metricsPort) {
    this.process = process;
    this.healthPort = healthPort;
    this.metricsPort = metricsPort;
  }

  /** Port of the process's /healthz and /readyz on 127.0.0.1. */
  int healthPort() {
    return healthPort;
  }

  /** Port of the process's /metrics on 127.0.0.1. */
  int metricsPort() {
    return metricsPort;
  }

  static ControllerProcess start(Path kubeconfig, Path log, String... flags) throws IOException {
    return start(kubeconfig, log, Map.of(), flags);
  }

  /**
   * @param env extra environment, e.g. {@code POD_NAME} (the leader-election identity)
   */
  static ControllerProcess start(
      Path kubeconfig, Path log, Map<String, String> env, String... flags) throws IOException {
    return start(kubeconfig, log, env, List.of(), flags);
  }

  /**
   * @param env extra environment, e.g. {@code POD_NAME} (the leader-election identity)
   * @param jvmOptions options of the child JVM, before the main class (e.g. a class-data sharing
   *     archive); without {@code -cp}, the child gets this JVM's class path
   */
  static ControllerProcess start(
      Path kubeconfig, Path log, Map<String, String> env, List<String> jvmOptions, String... flags)
      throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(jvmOptions);
    if (!jvmOptions.contains("-cp")) {
      cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    }
    cmd.add(ControllerMain.class.getName());
    List<Integer> ports = dev.ironcore.maintenance.testkit.FreePorts.pick(2);
    cmd.add("--health-probe-bind-address=127.0.0.1:" + ports.get(0));
    cmd.add("--metrics-bind-address=127.0.0.1:" + ports.get(1));
    cmd.addAll(List.of(flags));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().putAll(env);
    return new ControllerProcess(pb.start(), ports.get(0), ports.get(1));
  }

  /**
   * GET {@code path} on the health port; the HTTP status, or -1 when nothing answers (not yet
   * listening, or gone).
   */
  int probe(String path) {
    try {
      java.net.http.HttpResponse<Void> r =
          HTTP.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create("http://127.0.0.1:" + healthPort + path))
                  .timeout(java.time.Duration.ofSeconds(5))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.discarding());
      return r.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * SIGTERM, as the kubelet sends, then waits for the process to end.
   *
   * @return its exit code, or -1 when it did not end within 60 s
   */
  int terminate() throws InterruptedException {
    process.destroy();
    return process.waitFor(60, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  /** GET {@code /metrics} on the metrics port; the Prometheus text, or "" when nothing answers. */
  String metrics() {
    try {
      return HTTP.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                  .timeout(java.time.Duration.ofSeconds(5))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /**
   * SIGSTOP: the process is frozen (as in a long pause or a partition) and reads nothing until
   * {@link #resume()}; its open connections stay open until the other side closes them.
   */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    if (kill.waitFor() != 0) {
      throw new IOException(
          "kill -"
              + name
              + " "
              + process.pid()
              + ": "
              + new String(kill.getInputStream().readAllBytes()));
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /**
   * For a failed test, before the process is killed: SIGQUIT, which makes the JVM print every
   * thread's stack to its output (the test's log, after what it logged) without stopping it, and
   * {@code /metrics} (work queues, informers, reconciles) written to {@code metricsFile}. A stuck
   * worker or a silent watch can then be told apart after the run. Best effort: a process already
   * gone is left as it is.
   */
  void diagnose(Path metricsFile) throws InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    try {
      resume(); // a paused JVM prints nothing
      signal("QUIT");
      java.nio.file.Files.writeString(metricsFile, metrics());
    } catch (IOException e) {
      System.err.println("diagnose " + process.pid() + ": " + e);
    }
    Thread.sleep(1000); // the dump is written by the JVM's signal thread
  }

  /**
   * Sends SIGKILL and returns at once (safe from any thread, e.g. a watch handler that wants the
   * process dead right after it saw a write); {@link #kill} also waits for the end.
   */
  void killNow() {
    process.destroyForcibly();
  }

  /** The OS process id. */
  long pid() {
    return process.pid();
  }

  /** The exit code once the process ended, else -1 (still running). */
  int exitCode() {
    return process.isAlive() ? -1 : process.exitValue();
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed or released. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }
}

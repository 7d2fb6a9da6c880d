package dev.ironcore.maintenance.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process under measurement: started with its output in a log file, its memory read from {@code
 * /proc/<pid>/status}, stopped with SIGTERM (SIGKILL after 30 s).
 */
final class ChildProcess implements AutoCloseable {
  private final Process process;
  private final long startNanos;
  private final Path log;

  private ChildProcess(Process process, long startNanos, Path log) {
    this.process = process;
    this.startNanos = startNanos;
    this.log = log;
  }

  /**
   * @param command program and arguments
   * @param env added to this process's environment; when it is a pod's ({@code
   *     KUBERNETES_SERVICE_HOST}), this process's {@code KUBECONFIG} is not passed on (as in a pod)
   * @param log file receiving stdout and stderr (overwritten)
   */
  static ChildProcess start(List<String> command, Map<String, String> env, Path log) {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    if (env.containsKey("KUBERNETES_SERVICE_HOST")) {
      pb.environment().remove("KUBECONFIG");
    }
    pb.environment().putAll(env);
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      long t0 = System.nanoTime();
      return new ChildProcess(pb.start(), t0, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  /**
   * @return {@link System#nanoTime()} just before the process was spawned
   */
  long startNanos() {
    return startNanos;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  Path log() {
    return log;
  }

  /**
   * @return resident set size now, MiB ({@code VmRSS})
   */
  double rssMiB() {
    return statusKiB("VmRSS:") / 1024.0;
  }

  /**
   * @return highest resident set size so far, MiB ({@code VmHWM})
   */
  double peakRssMiB() {
    return statusKiB("VmHWM:") / 1024.0;
  }

  /**
   * @return CPU time the process has consumed so far, ms (user + system, {@code /proc/<pid>/stat};
   *     Linux reports it in USER_HZ ticks, 100 per second): unlike wall time, a loaded machine does
   *     not inflate it
   */
  double cpuMillis() {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
      // fields after the command name, which is in parentheses and may contain spaces
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10.0;
    } catch (IOException e) {
      throw new UncheckedIOException("process " + pid() + " is gone; see " + log, e);
    }
  }

  private long statusKiB(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("process " + pid() + " is gone; see " + log, e);
    }
    throw new IllegalStateException("no " + field + " for process " + pid());
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

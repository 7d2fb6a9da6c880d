package dev.ironcore.maintenance.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A child process whose standard output and error go to one log file. */
final class ManagedProcess {

  private final String name;
  private final Process process;
  private final Path logFile;

  private ManagedProcess(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
  }

  /**
   * Starts {@code command}, appending stdout and stderr to {@code logFile}.
   *
   * @param env variables set on top of this JVM's environment
   */
  static ManagedProcess start(
      String name, List<String> command, Path logFile, Map<String, String> env) {
    try {
      Files.createDirectories(logFile.toAbsolutePath().getParent());
      Files.writeString(
          logFile,
          "$ " + String.join(" ", command) + "\n",
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
          java.nio.file.StandardOpenOption.WRITE);
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      pb.environment().putAll(env);
      return new ManagedProcess(name, pb.start(), logFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + command.get(0) + ")", e);
    }
  }

  String name() {
    return name;
  }

  /** The operating system's process id. */
  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Exit code if the process has ended, else null. */
  Integer exitCode() {
    return process.isAlive() ? null : process.exitValue();
  }

  Path logFile() {
    return logFile;
  }

  /**
   * Sends SIGTERM, waits up to {@code grace}, then SIGKILL and waits for the process to be reaped.
   * Safe to call more than once.
   */
  void stop(Duration grace) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** The last {@code lines} lines of the log file (empty if it cannot be read). */
  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }
}

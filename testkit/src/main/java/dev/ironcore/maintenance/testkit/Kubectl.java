package dev.ironcore.maintenance.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a kubectl binary against one kubeconfig. Thread-safe; each call is a new process. */
public final class Kubectl {

  /** How long one kubectl run may take before it is killed. */
  public static final Duration TIMEOUT = Duration.ofMinutes(2);

  private final Path binary;
  private final Path kubeconfig;

  /**
   * @param binary the kubectl executable
   * @param kubeconfig passed as {@code --kubeconfig}; null to pass none (e.g. for {@code
   *     kustomize})
   */
  public Kubectl(Path binary, Path kubeconfig) {
    this.binary = binary;
    this.kubeconfig = kubeconfig;
  }

  /**
   * Finds kubectl: {@code binDir/kubectl} if executable, else {@code /usr/bin/kubectl}, else the
   * first {@code kubectl} on {@code PATH}.
   *
   * @param binDir may be null
   * @throws IllegalStateException if none is found
   */
  public static Path locate(Path binDir) {
    List<Path> candidates = new ArrayList<>();
    if (binDir != null) {
      candidates.add(binDir.resolve("kubectl"));
    }
    candidates.add(Path.of("/usr/bin/kubectl"));
    String path = System.getenv("PATH");
    if (path != null) {
      Arrays.stream(path.split(":"))
          .filter(s -> !s.isEmpty())
          .forEach(d -> candidates.add(Path.of(d, "kubectl")));
    }
    return candidates.stream()
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("kubectl not found; looked at " + candidates));
  }

  /** The executable this instance runs. */
  public Path binary() {
    return binary;
  }

  /** Runs {@code kubectl [--kubeconfig K] args...} with empty standard input. */
  public KubectlResult run(String... args) {
    return runWithInput(null, args);
  }

  /**
   * Runs kubectl feeding {@code stdin} (UTF-8; null for none), e.g. {@code apply -f -}.
   *
   * @throws IllegalStateException if the process cannot start or exceeds {@link #TIMEOUT}
   */
  public KubectlResult runWithInput(String stdin, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    if (kubeconfig != null) {
      cmd.add("--kubeconfig");
      cmd.add(kubeconfig.toString());
    }
    cmd.addAll(Arrays.asList(args));
    Process p;
    try {
      p = new ProcessBuilder(cmd).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + binary, e);
    }
    CompletableFuture<byte[]> out = drain(p.getInputStream());
    CompletableFuture<byte[]> err = drain(p.getErrorStream());
    try (OutputStream in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      // kubectl may exit before reading its input; its exit code and stderr tell why
    }
    try {
      if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(
            "kubectl " + String.join(" ", args) + " timed out after " + TIMEOUT);
      }
      return new KubectlResult(
          List.of(args),
          p.exitValue(),
          new String(out.join(), StandardCharsets.UTF_8),
          new String(err.join(), StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running kubectl", e);
    }
  }

  private static CompletableFuture<byte[]> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            in.transferTo(buf);
            return buf.toByteArray();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}

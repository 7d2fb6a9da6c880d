package dev.ironcore.maintenance.testkit;

import java.util.List;

/**
 * Outcome of one kubectl run.
 *
 * @param args the arguments given (without the binary and {@code --kubeconfig})
 * @param exitCode process exit code; 0 is success
 * @param stdout everything written to standard output (UTF-8)
 * @param stderr everything written to standard error (UTF-8)
 */
public record KubectlResult(List<String> args, int exitCode, String stdout, String stderr) {

  /** True when the exit code is 0. */
  public boolean ok() {
    return exitCode == 0;
  }

  /**
   * Returns this result when the exit code is 0.
   *
   * @throws IllegalStateException otherwise, with the arguments, exit code and stderr in the
   *     message
   */
  public KubectlResult orThrow() {
    if (!ok()) {
      throw new IllegalStateException(
          "kubectl " + String.join(" ", args) + " exited with " + exitCode + ": " + stderr.strip());
    }
    return this;
  }
}

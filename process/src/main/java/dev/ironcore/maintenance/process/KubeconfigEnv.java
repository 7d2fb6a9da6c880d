package dev.ironcore.maintenance.process;

import java.io.File;
import java.util.Map;

/**
 * Checks the {@code KUBECONFIG} environment variable before a client is built. The Kubernetes
 * client silently ignores a file it names that does not exist and falls back to {@code
 * ~/.kube/config} or the in-cluster service account, so a typo would talk to another cluster (or
 * none). Here each file it names must exist and be readable.
 */
public final class KubeconfigEnv {
  private KubeconfigEnv() {}

  /**
   * @param env the process environment ({@code System.getenv()})
   * @throws IllegalArgumentException naming the first file of {@code KUBECONFIG} (a {@code
   *     :}-separated list) that is not a readable file; nothing when {@code KUBECONFIG} is unset or
   *     empty
   */
  public static void check(Map<String, String> env) {
    String value = env.get("KUBECONFIG");
    if (value == null || value.isBlank()) {
      return;
    }
    for (String path : value.split(File.pathSeparator)) {
      if (path.isEmpty()) {
        continue;
      }
      File file = new File(path);
      if (!file.isFile() || !file.canRead()) {
        throw new IllegalArgumentException(
            "KUBECONFIG names "
                + path
                + ", which "
                + (file.exists() ? "is not a readable file" : "does not exist")
                + " (fix or unset KUBECONFIG; unset, the client uses ~/.kube/config or the"
                + " in-cluster service account)");
      }
    }
  }
}

package dev.ironcore.maintenance.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One {@link LocalControlPlane} per test JVM, started on first {@link #get()} and stopped by the
 * JVM shutdown hook. Tests share it, so they should use their own namespaces or unique names.
 *
 * <p>Binaries come from system property {@value #BIN_DIR_PROPERTY} (set by surefire in the parent
 * pom); the work dir is {@code <module>/target/controlplane/<pid>}.
 */
public final class SharedControlPlane {

  /** System property naming the directory with etcd, kube-apiserver and kubectl. */
  public static final String BIN_DIR_PROPERTY = "controlplane.dir";

  private static LocalControlPlane instance;
  private static RuntimeException failure;

  private SharedControlPlane() {}

  /**
   * The shared control plane, started on first call (typically 10-30 s). A failed start is
   * remembered, so later callers fail fast with the same error.
   *
   * @throws IllegalStateException if the property is unset, binaries are missing (the message says
   *     to run {@code make controlplane}) or the start failed
   */
  public static synchronized LocalControlPlane get() {
    if (instance != null) {
      return instance;
    }
    if (failure != null) {
      throw new IllegalStateException("shared control plane failed to start earlier", failure);
    }
    try {
      instance = LocalControlPlane.start(binDir(), workDir());
      return instance;
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    }
  }

  /** The binary directory from {@value #BIN_DIR_PROPERTY}, checked for etcd and kube-apiserver. */
  public static Path binDir() {
    String dir = System.getProperty(BIN_DIR_PROPERTY);
    if (dir == null || dir.isBlank()) {
      throw new IllegalStateException(
          "system property "
              + BIN_DIR_PROPERTY
              + " is not set; run tests through Maven (the parent"
              + " pom sets it) or pass -D"
              + BIN_DIR_PROPERTY
              + "=DIR");
    }
    Path bin = Path.of(dir);
    for (String name : new String[] {"etcd", "kube-apiserver"}) {
      if (!Files.isExecutable(bin.resolve(name))) {
        throw new IllegalStateException(
            "control-plane binary "
                + bin.resolve(name)
                + " is missing; run `make controlplane`"
                + " (hack/build-controlplane.sh, ~6 min the first time) and retry");
      }
    }
    return bin;
  }

  private static Path workDir() {
    String base = System.getProperty("basedir", System.getProperty("user.dir"));
    return Path.of(base, "target", "controlplane", Long.toString(ProcessHandle.current().pid()));
  }
}

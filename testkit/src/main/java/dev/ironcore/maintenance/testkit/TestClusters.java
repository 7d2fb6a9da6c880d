package dev.ironcore.maintenance.testkit;

import org.junit.jupiter.api.Assumptions;

/**
 * The {@link TestCluster} of this test JVM, chosen by system property {@value #PROPERTY}: {@code
 * local} (default: {@link SharedControlPlane}) or {@code k3s} ({@link K3sCluster} via
 * Testcontainers). When {@code k3s} is asked for but no Docker engine answers, every test that asks
 * is aborted (reported as skipped) with the reason, which is also printed once.
 */
public final class TestClusters {

  /** System property selecting the cluster kind. */
  public static final String PROPERTY = "test.cluster";

  private static TestCluster k3s;
  private static String k3sUnavailable;

  private TestClusters() {}

  /**
   * @throws org.opentest4j.TestAbortedException for {@code k3s} without a Docker engine
   * @throws IllegalStateException if the cluster cannot start, or the property has another value
   */
  public static synchronized TestCluster shared() {
    String kind = System.getProperty(PROPERTY, "local");
    switch (kind) {
      case "local":
        return SharedControlPlane.get();
      case "k3s":
        if (k3s == null && k3sUnavailable == null) {
          k3sUnavailable = K3sCluster.unavailableReason();
          if (k3sUnavailable != null) {
            System.err.println("[testkit] k3s variant skipped: " + k3sUnavailable);
          } else {
            k3s = K3sCluster.start();
          }
        }
        Assumptions.assumeTrue(
            k3sUnavailable == null, () -> "k3s variant skipped: " + k3sUnavailable);
        return k3s;
      default:
        throw new IllegalStateException("-D" + PROPERTY + "=" + kind + ": expected local or k3s");
    }
  }
}

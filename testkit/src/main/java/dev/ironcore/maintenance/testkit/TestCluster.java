package dev.ironcore.maintenance.testkit;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;

/**
 * A real Kubernetes API server the end-to-end suites run against: the local etcd + kube-apiserver
 * ({@link LocalControlPlane}) or k3s in a container ({@link K3sCluster}). Obtain the shared one
 * with {@link TestClusters#shared()}.
 */
public interface TestCluster {

  /** Human-readable description, e.g. {@code local kube-apiserver https://127.0.0.1:40123}. */
  String description();

  /** Admin kubeconfig file. */
  Path kubeconfig();

  /** Shared admin client; do not close it. */
  KubernetesClient client();

  /** A new admin client; the caller closes it. */
  KubernetesClient newClient();

  /** kubectl bound to {@link #kubeconfig()}. */
  Kubectl kubectlTool();

  /**
   * Runs kubectl with {@code args}; never throws on a non-zero exit (see {@link
   * KubectlResult#orThrow()}).
   */
  default KubectlResult kubectl(String... args) {
    return kubectlTool().run(args);
  }

  /**
   * Host name or IP under which the API server reaches a webhook server listening on this machine's
   * loopback ({@code 127.0.0.1} locally, {@code host.testcontainers.internal} from a container);
   * the webhook's serving certificate must carry it as a SAN.
   */
  String webhookHost();

  /**
   * A loopback port reserved for a test webhook server, reachable from the API server at {@link
   * #webhookHost()} (for k3s it is exposed to the container before the container starts).
   */
  int webhookPort();
}

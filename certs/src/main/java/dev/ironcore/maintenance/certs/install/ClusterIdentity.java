package dev.ironcore.maintenance.certs.install;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which cluster a client reaches, whatever its kubeconfig calls the API server: the {@code uid} of
 * the namespace {@code kube-system}, which every cluster has and which stays for the cluster's life
 * (the usual stand-in for a cluster ID, as Kubernetes KEP-2149 notes). Catches what a URL
 * comparison cannot: {@code localhost} and {@code 127.0.0.1}, a DNS name and its IP, a load
 * balancer and a node's address.
 */
final class ClusterIdentity {
  static final String NAMESPACE = "kube-system";

  private ClusterIdentity() {}

  /**
   * The {@code uid} of {@code kube-system} as {@code client} reads it; empty when it cannot be read
   * (no such namespace, RBAC refuses it, no answer): the check is then skipped, and whatever the
   * install asks of that cluster next reports such a failure itself.
   */
  static Optional<String> uid(KubernetesClient client) {
    try {
      Namespace ns = client.namespaces().withName(NAMESPACE).get();
      return ns == null || ns.getMetadata() == null
          ? Optional.empty()
          : Optional.ofNullable(ns.getMetadata().getUid());
    } catch (KubernetesClientException e) {
      return Optional.empty();
    }
  }

  /**
   * Why these clients may not be used together: two of them reach one cluster (their {@code
   * kube-system} uids are equal), so it would be asked and written twice as if it were two.
   *
   * @param clients one per {@code --kubeconfig}, in order
   * @param kubeconfigs the files they were made from, for the message (same order and size)
   * @return one line naming both files and the uid; empty when the clusters differ or an identity
   *     could not be read
   */
  static Optional<String> sameCluster(List<KubernetesClient> clients, List<Path> kubeconfigs) {
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < clients.size(); i++) {
      Optional<String> uid = uid(clients.get(i));
      if (uid.isEmpty()) {
        continue;
      }
      Integer first = seen.putIfAbsent(uid.get(), i);
      if (first != null) {
        return Optional.of(
            "--kubeconfig: "
                + kubeconfigs.get(first)
                + " ("
                + clients.get(first).getMasterUrl()
                + ") and "
                + kubeconfigs.get(i)
                + " ("
                + clients.get(i).getMasterUrl()
                + ") reach one cluster (namespace "
                + NAMESPACE
                + " has uid "
                + uid.get()
                + " in both): give one kubeconfig per cluster (make certs: leave IRONCORE_KUBECONFIG"
                + " out when the IronCore API is served by the cluster of KUBECONFIG)");
      }
    }
    return Optional.empty();
  }
}

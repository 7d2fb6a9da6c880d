package dev.ironcore.maintenance.server.admission;

/**
 * The {@code request.kind} of an AdmissionReview ({@code group} is empty for the core group).
 *
 * @param group API group, e.g. {@code "cluster.x-k8s.io"}
 * @param version version, e.g. {@code "v1beta2"}
 * @param kind kind, e.g. {@code "Machine"}
 */
public record GroupVersionKind(String group, String version, String kind) {

  /**
   * @return true when group and kind equal the arguments (any version)
   */
  public boolean is(String group, String kind) {
    return this.group.equals(group) && this.kind.equals(kind);
  }

  /**
   * @return {@code Kind.group} as Kubernetes prints a qualified kind, e.g. {@code
   *     Machine.cluster.x-k8s.io}
   */
  @Override
  public String toString() {
    return group.isEmpty() ? kind : kind + "." + group;
  }
}

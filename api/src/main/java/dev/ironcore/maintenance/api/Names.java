package dev.ironcore.maintenance.api;

/**
 * Exact strings shared by the webhooks and the controller (domain reference §2).
 *
 * <p>Sources: IronCore IEP-21 (eviction), IEP-15 (pool health), {@code
 * ironcore-dev/pool-lifecycle-controller} (CAPI pre-drain hook), Cluster API Machine deletion
 * hooks.
 */
public final class Names {
  private Names() {}

  /** Our finalizer on CAPI Machines; released last, after the MachinePool is deleted. */
  public static final String CLEANUP_FINALIZER = "maintenance.ironcore.dev/machinepool-cleanup";

  /**
   * Annotation in which a v1alpha1 Machine or MachinePool keeps its v1alpha2-only list fields
   * (written by down-conversion, read back by up-conversion and by validation).
   */
  public static final String V1ALPHA2_FIELDS_ANNOTATION =
      "maintenance.ironcore.dev/v1alpha2-fields";

  /**
   * kubectl's record of the manifest it applied last (client-side apply; the API server keeps it
   * current for kubectl's server-side apply where one is there).
   */
  public static final String LAST_APPLIED_ANNOTATION =
      "kubectl.kubernetes.io/last-applied-configuration";

  /**
   * Annotation {@code "true"} on the {@code BOOKMARK} that ends a streaming list's initial events
   * (Kubernetes watch list, KEP-3157: a watch with {@code sendInitialEvents=true}).
   */
  public static final String INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

  /**
   * Prefix of Cluster API's pre-drain hook annotations ({@code <prefix><owner>}): while one is on a
   * deleting CAPI Machine, CAPI does not drain its node.
   */
  public static final String PRE_DRAIN_HOOK_PREFIX =
      "pre-drain.delete.hook.machine.cluster.x-k8s.io/";

  /**
   * Prefix of Cluster API's pre-terminate hook annotations ({@code <prefix><owner>}): while one is
   * on a deleting CAPI Machine, CAPI drained the node but does not delete it (nor its
   * infrastructure), and keeps its finalizer.
   */
  public static final String PRE_TERMINATE_HOOK_PREFIX =
      "pre-terminate.delete.hook.machine.cluster.x-k8s.io/";

  /** Annotation key of our CAPI pre-drain hook; while present, CAPI does not drain the node. */
  public static final String PRE_DRAIN_HOOK_ANNOTATION =
      "pre-drain.delete.hook.machine.cluster.x-k8s.io/ironcore-maintenance";

  /** Value of {@link #PRE_DRAIN_HOOK_ANNOTATION} (CAPI uses the value as the hook's owner). */
  public static final String PRE_DRAIN_HOOK_VALUE = "ironcore-maintenance";

  /** Cluster API's own Machine finalizer; gone once CAPI has finished with the node. */
  public static final String CAPI_MACHINE_FINALIZER = "machine.cluster.x-k8s.io";

  /** Key of the maintenance taints (no value), once with NoSchedule and once with NoExecute. */
  public static final String MAINTENANCE_TAINT_KEY = "maintenance.ironcore.dev";

  /** Finalizer the machinepoollet holds on an IronCore Machine until its VM is shut down. */
  public static final String POOLLET_FINALIZER = "machinepoollet.ironcore.dev/machine";

  /** Namespace of the per-pool {@code coordination.k8s.io/v1} Leases (each named like its pool). */
  public static final String LEASE_NAMESPACE = "ironcore-machinepool-lease";

  /** Pool condition type written by the health loop. */
  public static final String READY_CONDITION = "Ready";

  /** Reason of the Ready=Unknown condition (IronCore IEP-15). */
  public static final String POOL_STATUS_UNKNOWN_REASON = "MachinePoolStatusUnknown";

  /** Message of the Ready=Unknown condition (IronCore IEP-15). */
  public static final String POOL_STATUS_UNKNOWN_MESSAGE =
      "machinepoollet stopped posting machine pool status.";

  /** Reason of the Normal event on an evicted IronCore Machine. */
  public static final String EVICTED_REASON = "Evicted";

  /**
   * Reason of the Warning event on an IronCore Machine whose eviction (DELETE) was refused or
   * failed; the message names the pool and the API server's answer.
   */
  public static final String EVICTION_FAILED_REASON = "EvictionFailed";

  /** API group of IronCore compute resources. */
  public static final String COMPUTE_GROUP = "compute.ironcore.dev";

  /** API group of Cluster API. */
  public static final String CAPI_GROUP = "cluster.x-k8s.io";

  /** CAPI's storage version from CAPI 1.11 on; our CAPI webhooks are registered for it. */
  public static final String CAPI_STORAGE_VERSION = "v1beta2";
}

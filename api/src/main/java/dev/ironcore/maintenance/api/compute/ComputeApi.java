package dev.ironcore.maintenance.api.compute;

import dev.ironcore.maintenance.api.Names;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.List;

/**
 * Which {@code compute.ironcore.dev} version the controller (and the webhook server's Machine cache
 * for eviction warnings) reads, from the versions the API server serves (discovered once at start):
 *
 * <ul>
 *   <li>{@link #V1ALPHA2}: our CRDs ({@code manifests/crds}) serve v1alpha2: Machines and pools are
 *       read as v1alpha2 and {@code tolerationSeconds} delays eviction;
 *   <li>{@link #V1ALPHA1}: only v1alpha1 (a real IronCore API server, or the group not found): read
 *       as v1alpha1, no delayed eviction (a matching toleration tolerates for good, as in
 *       IronCore).
 * </ul>
 */
public enum ComputeApi {
  V1ALPHA1(Machine.class, MachinePool.class),
  V1ALPHA2(MachineV1alpha2.class, MachinePoolV1alpha2.class);

  private final Class<? extends Machine> machineClass;
  private final Class<? extends MachinePool> poolClass;

  ComputeApi(Class<? extends Machine> machineClass, Class<? extends MachinePool> poolClass) {
    this.machineClass = machineClass;
    this.poolClass = poolClass;
  }

  /**
   * @param served the versions the API server lists for {@code compute.ironcore.dev}
   * @return {@link #V1ALPHA2} when {@code v1alpha2} is among them, else {@link #V1ALPHA1}
   */
  public static ComputeApi of(Collection<String> served) {
    return served.contains("v1alpha2") ? V1ALPHA2 : V1ALPHA1;
  }

  /**
   * @return the versions the API server serves for {@code compute.ironcore.dev} (API discovery);
   *     empty when the group does not exist
   */
  public static List<String> served(KubernetesClient client) {
    APIGroup group = client.getApiGroup(Names.COMPUTE_GROUP);
    if (group == null || group.getVersions() == null) {
      return List.of();
    }
    return group.getVersions().stream().map(GroupVersionForDiscovery::getVersion).toList();
  }

  /**
   * @return true when {@code tolerationSeconds} delays eviction
   */
  public boolean delayedEviction() {
    return this == V1ALPHA2;
  }

  /**
   * @return the class Machines are read as
   */
  public Class<? extends Machine> machineClass() {
    return machineClass;
  }

  /**
   * @return the class MachinePools are read as
   */
  public Class<? extends MachinePool> poolClass() {
    return poolClass;
  }

  /**
   * @return e.g. {@code compute.ironcore.dev/v1alpha2}
   */
  public String apiVersion() {
    return Names.COMPUTE_GROUP + "/" + name().toLowerCase(java.util.Locale.ROOT);
  }
}

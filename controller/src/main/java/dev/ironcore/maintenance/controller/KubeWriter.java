package dev.ironcore.maintenance.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.MetadataPatches;
import dev.ironcore.maintenance.api.patch.PatchOperation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The controller's writes. Each one re-reads the live object and sends a JSON Patch built against
 * it that touches only our own entries: additions never replace a whole map or list, removals are
 * guarded by {@code test} operations, and taint additions are guarded by the resourceVersion, so a
 * concurrent writer makes the API server refuse the patch (409/422) and the queue retries with a
 * fresh read. A write whose wanted state already holds sends nothing.
 */
public final class KubeWriter {
  /** Our JSON limits, with fabric8's modules (how the clients serialise). */
  private static final io.fabric8.kubernetes.client.utils.KubernetesSerialization JSON =
      dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization();

  private final Clusters clusters;
  private final ComputeApi api;

  /**
   * Writes to one cluster that stores CAPI and IronCore objects alike, IronCore objects in v1alpha1
   * (which every compute.ironcore.dev API server serves).
   */
  public KubeWriter(KubernetesClient client) {
    this(Clusters.single(client), ComputeApi.V1ALPHA1);
  }

  /** As {@link #KubeWriter(Clusters, ComputeApi)} with IronCore objects in v1alpha1. */
  public KubeWriter(Clusters clusters) {
    this(clusters, ComputeApi.V1ALPHA1);
  }

  /**
   * @param api the compute.ironcore.dev version to read and write MachinePools and Machines in: the
   *     one the informers read ({@link ComputeApi#of}), so that where the API server stores
   *     v1alpha2 no call of ours needs the conversion webhook (an eviction DELETE or a pool read in
   *     v1alpha1 failed or hung while {@code /convert} was down)
   */
  public KubeWriter(Clusters clusters, ComputeApi api) {
    this.clusters = clusters;
    this.api = api;
  }

  /** MachinePool {@code name} (cluster-scoped) in {@link ComputeApi#poolClass()}'s version. */
  public Resource<? extends MachinePool> pool(String name) {
    return ironcore().resources(api.poolClass()).withName(name);
  }

  /**
   * MachinePool {@code name} as the API server has it now (one GET), or null when it does not
   * exist; null without a request when {@code name} cannot be an object's name (e.g. a CAPI
   * Machine's {@code nodeRef} {@code pool?x=1} or {@code ..}: fabric8 would put it into the URL as
   * it is).
   */
  public MachinePool livePool(String name) {
    // a custom object's name is a DNS-1123 subdomain (Kubernetes NameIsDNSSubdomain)
    return name != null
            && dev.ironcore.maintenance.api.validation.LabelSyntax.dns1123SubdomainErrors(name)
                .isEmpty()
        ? pool(name).get()
        : null;
  }

  /** Machine {@code namespace/name} in {@link ComputeApi#machineClass()}'s version. */
  public Resource<? extends Machine> machine(String namespace, String name) {
    return ironcore().resources(api.machineClass()).inNamespace(namespace).withName(name);
  }

  /** The API server of CAPI Machines. */
  public KubernetesClient capi() {
    return clusters.capi();
  }

  /** The IronCore API server: MachinePools, Machines, pool Leases. */
  public KubernetesClient ironcore() {
    return clusters.ironcore();
  }

  /**
   * Re-reads the object behind {@code resource}, builds a patch from its JSON with {@code edit} and
   * applies it when not empty.
   *
   * @return true when a patch was sent; false when the object is gone or needed nothing
   */
  public <T extends HasMetadata> boolean patchMetadata(
      Resource<T> resource, Function<MetadataPatches.Editor, MetadataPatches.Editor> edit) {
    return patchMetadata(resource, live -> true, edit);
  }

  /**
   * As {@link #patchMetadata(Resource, Function)}, but sends nothing unless the live object
   * satisfies {@code when} (e.g. "not being deleted").
   */
  public <T extends HasMetadata> boolean patchMetadata(
      Resource<T> resource,
      Predicate<T> when,
      Function<MetadataPatches.Editor, MetadataPatches.Editor> edit) {
    return patchMetadata(resource, when, edit, () -> {});
  }

  /**
   * As {@link #patchMetadata(Resource, Predicate, Function)}; {@code beforePatch} runs right before
   * the patch is sent, only when one is (e.g. to record the event that announces it, so a crash
   * between the two cannot lose the event).
   */
  public <T extends HasMetadata> boolean patchMetadata(
      Resource<T> resource,
      Predicate<T> when,
      Function<MetadataPatches.Editor, MetadataPatches.Editor> edit,
      Runnable beforePatch) {
    return patchMetadata(resource, when, edit, beforePatch, false);
  }

  /**
   * As {@link #patchMetadata(Resource, Predicate, Function)}, but the patch first tests the
   * resourceVersion just read, so {@code when} still holds when it applies: for additions (which
   * carry no {@code test} of their own), e.g. a finalizer added only while the object is not being
   * deleted (kube-apiserver refuses a new finalizer on a deleting object with a 422 that names the
   * field; with the guard a deletion in between is a stale read, {@link
   * dev.ironcore.maintenance.controller.runtime.ObjectChanged}, and the next pass decides again).
   */
  public <T extends HasMetadata> boolean patchMetadataWhileUnchanged(
      Resource<T> resource,
      Predicate<T> when,
      Function<MetadataPatches.Editor, MetadataPatches.Editor> edit) {
    return patchMetadata(resource, when, edit, () -> {}, true);
  }

  private <T extends HasMetadata> boolean patchMetadata(
      Resource<T> resource,
      Predicate<T> when,
      Function<MetadataPatches.Editor, MetadataPatches.Editor> edit,
      Runnable beforePatch,
      boolean guardResourceVersion) {
    T live = resource.get();
    if (live == null || !when.test(live)) {
      return false;
    }
    JsonNode json = JSON.convertValue(live, JsonNode.class);
    JsonPatch patch = edit.apply(MetadataPatches.on(json)).build();
    if (patch.isEmpty()) {
      return false;
    }
    if (guardResourceVersion) {
      patch =
          JsonPatch.builder()
              .test("/metadata/resourceVersion", live.getMetadata().getResourceVersion())
              .addAll(patch)
              .build();
    }
    beforePatch.run();
    return apply(resource, patch);
  }

  /**
   * Sends {@code patch} as {@code application/json-patch+json}; false when it is empty.
   *
   * @throws dev.ironcore.maintenance.controller.runtime.ObjectChanged when the API server refused
   *     it with 409, or with 422 because a {@code test} operation failed ({@link
   *     dev.ironcore.maintenance.controller.runtime.ObjectChanged#isStale}): the object changed
   *     since it was read (its message says so; the queue decides again), instead of fabric8's "the
   *     server rejected our request due to an error in our request"; a 422 naming invalid fields is
   *     thrown as it came
   */
  public <T extends HasMetadata> boolean apply(Resource<T> resource, JsonPatch patch) {
    if (patch.isEmpty()) {
      return false;
    }
    try {
      resource.patch(PatchContext.of(PatchType.JSON), patch.toJson().toString());
    } catch (KubernetesClientException e) {
      if (dev.ironcore.maintenance.controller.runtime.ObjectChanged.isStale(e, hasTest(patch))) {
        throw new dev.ironcore.maintenance.controller.runtime.ObjectChanged(e.getCode(), e);
      }
      throw e;
    }
    return true;
  }

  private static boolean hasTest(JsonPatch patch) {
    return patch.operations().stream().anyMatch(o -> o.op() == PatchOperation.Op.TEST);
  }

  /**
   * Adds {@code wanted} taints the live pool lacks (matched by key and effect), keeping all its
   * other taints; guarded by the pool's resourceVersion.
   *
   * @return the taints actually added (empty when the pool is gone or already has them)
   */
  public List<Taint> addTaints(String poolName, List<Taint> wanted) {
    return addTaints(poolName, wanted, () -> {});
  }

  /**
   * As {@link #addTaints(String, List)}; {@code beforePatch} runs right before the patch is sent,
   * only when one is.
   */
  public List<Taint> addTaints(String poolName, List<Taint> wanted, Runnable beforePatch) {
    return addTaints(pool(poolName), wanted, beforePatch);
  }

  private <T extends MachinePool> List<Taint> addTaints(
      Resource<T> resource, List<Taint> wanted, Runnable beforePatch) {
    T live = resource.get();
    if (live == null) {
      return List.of();
    }
    if (live.decodeError() != null) {
      // its taints are unknown: adding ours could replace them
      throw new IllegalStateException(
          "pool "
              + live.getMetadata().getName()
              + " cannot be decoded, not tainting it: "
              + live.decodeError());
    }
    List<Taint> present = live.getSpec() == null ? List.of() : live.getSpec().taintsOrEmpty();
    List<Taint> missing =
        wanted.stream()
            .filter(w -> present.stream().noneMatch(p -> p != null && p.sameKeyAndEffect(w)))
            .toList();
    if (missing.isEmpty()) {
      return List.of();
    }
    JsonNodeFactory f = JsonNodeFactory.instance;
    JsonPatch.Builder b =
        JsonPatch.builder()
            .test("/metadata/resourceVersion", live.getMetadata().getResourceVersion());
    ArrayNode taintsJson = JSON.convertValue(missing, ArrayNode.class);
    if (live.getSpec() == null) {
      ObjectNode spec = f.objectNode();
      spec.set("taints", taintsJson);
      b.add("/spec", spec);
    } else if (live.getSpec().getTaints() == null) {
      b.add("/spec/taints", taintsJson);
    } else {
      taintsJson.forEach(t -> b.add("/spec/taints/-", t));
    }
    beforePatch.run();
    apply(resource, b.build());
    return missing;
  }
}

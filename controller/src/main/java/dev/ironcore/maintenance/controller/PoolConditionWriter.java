package dev.ironcore.maintenance.controller;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import dev.ironcore.maintenance.api.patch.PatchTarget;
import dev.ironcore.maintenance.controller.runtime.ObjectChanged;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sets one condition on a MachinePool's status with IronCore's semantics ({@link Conditions#set}),
 * only when it changes: nothing is sent when status, reason, message and observedGeneration are
 * already as wanted. The JSON Patch touches only that condition's entry (tested by type at its
 * index) and is guarded by the resourceVersion of the copy it was built on. Starting from the
 * informer's copy ({@link #set(MachinePool, String, String, String, String)}) costs no GET: a stale
 * copy makes the API server refuse the patch (409 or 422) and the write is decided again, once, on
 * a fresh read; a concurrent writer after that (the poollet updating {@code Ready}) makes it fail
 * and the caller retries. A pool change re-queues the loops that write here, so a copy that already
 * shows the condition is corrected by the next pass.
 */
public final class PoolConditionWriter {
  private final KubernetesClient client;
  private final Clock clock;

  /**
   * Per pool name: the resourceVersion our last write was built on and the pool it produced. While
   * the informer still shows that resourceVersion, the produced pool is the newer copy (our own
   * write has not come back through the watch yet) and the next write starts from it instead of
   * being refused as stale. One entry per pool written, dropped when the pool is found gone or
   * {@link #forget forgotten}.
   */
  private final Map<String, Written> lastWritten = new ConcurrentHashMap<>();

  private record Written(String builtOn, MachinePool result) {}

  public PoolConditionWriter(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * What a write found and did.
   *
   * @param written true when a patch was sent
   * @param previousReason the condition's reason before (null when it had none, or the pool is
   *     gone)
   */
  public record Write(boolean written, String previousReason) {
    /** True when the write moved the condition to another reason (a transition into it). */
    public boolean reasonChanged(String reason) {
      return written && !Objects.equals(previousReason, reason);
    }
  }

  /**
   * As {@link #set(MachinePool, String, String, String, String)} on the live pool (one GET first).
   *
   * @param poolName the MachinePool's name (cluster-scoped)
   */
  public Write set(String poolName, String type, String status, String reason, String message) {
    return set(read(MachinePool.class, poolName), type, status, reason, message);
  }

  /**
   * Sets condition {@code type} to {@code status}/{@code reason}/{@code message} starting from
   * {@code base}, a copy of the pool that may be stale (the informer's): no GET when it is current.
   *
   * @param base the pool the decision starts from; null when the cache has none (nothing written)
   * @return what happened; {@code written=false} when the pool is gone or already shows this
   * @throws ObjectChanged when the patch is refused even on a fresh read (a concurrent writer): the
   *     loop decides again
   * @throws io.fabric8.kubernetes.client.KubernetesClientException any other refusal or failure
   */
  public Write set(MachinePool base, String type, String status, String reason, String message) {
    if (base == null) {
      return new Write(false, null);
    }
    Written ours = lastWritten.get(base.getMetadata().getName());
    if (ours != null
        && Objects.equals(ours.builtOn(), base.getMetadata().getResourceVersion())
        && ours.result().getClass() == base.getClass()) {
      base = ours.result();
    }
    try {
      return patch(base, type, status, reason, message);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        forget(base.getMetadata().getName());
        return new Write(false, null);
      }
      throw e;
    } catch (ObjectChanged stale) {
      MachinePool live = read(base.getClass(), base.getMetadata().getName());
      if (live == null) {
        forget(base.getMetadata().getName());
        return new Write(false, null);
      }
      return patch(live, type, status, reason, message);
    }
  }

  /** Drops what this writer remembers of pool {@code poolName} (e.g. once it is deleted). */
  public void forget(String poolName) {
    lastWritten.remove(poolName);
  }

  /** The live pool in {@code version}'s API version (a subclass reads its own), or null. */
  private MachinePool read(Class<? extends MachinePool> version, String poolName) {
    return client.resources(version).withName(poolName).get();
  }

  /** Sends the patch built on {@code base} (when the condition differs); 409/422 when stale. */
  private Write patch(MachinePool base, String type, String status, String reason, String message) {
    List<Condition> conditions = base.getStatus() == null ? null : base.getStatus().getConditions();
    Condition current = Conditions.find(conditions, type);
    Long generation = base.getMetadata().getGeneration();
    if (current != null
        && Objects.equals(current.getStatus(), status)
        && Objects.equals(current.getReason(), reason)
        && Objects.equals(current.getMessage(), message)
        && Objects.equals(current.getObservedGeneration(), generation)) {
      return new Write(false, reason);
    }
    List<Condition> updated =
        Conditions.set(conditions, type, status, reason, message, generation, clock.instant());
    MachinePool result = send(client, base, type, updated);
    if (result != null && result.getMetadata() != null) {
      lastWritten.put(
          base.getMetadata().getName(),
          new Written(base.getMetadata().getResourceVersion(), result));
    }
    return new Write(true, current == null ? null : current.getReason());
  }

  /**
   * Sends the JSON Patch that turns {@code base}'s status conditions into {@code updated}, which
   * differs from them in condition {@code type} only: guarded by {@code base}'s resourceVersion and
   * that condition's index, touching only its entry. Sent in {@code base}'s API version (the
   * informer reads the storage version where served, so the API server converts nothing).
   *
   * @return the pool as the API server stored it (its new resourceVersion)
   * @throws ObjectChanged when the API server refused it with 409 or 422 (the live pool is no
   *     longer {@code base}: its resourceVersion or the condition's index moved)
   * @throws io.fabric8.kubernetes.client.KubernetesClientException 404 when it is gone, any other
   *     refusal or failure
   */
  public static <T extends MachinePool> T send(
      KubernetesClient client, T base, String type, List<Condition> updated) {
    List<Condition> conditions = base.getStatus() == null ? null : base.getStatus().getConditions();
    Condition current = Conditions.find(conditions, type);
    JsonPatch.Builder patch =
        JsonPatch.builder()
            .test("/metadata/resourceVersion", base.getMetadata().getResourceVersion());
    ArrayNode json = client.getKubernetesSerialization().convertValue(updated, ArrayNode.class);
    if (base.getStatus() == null) {
      ObjectNode statusNode = JsonNodeFactory.instance.objectNode();
      statusNode.set("conditions", json);
      patch.add("/status", statusNode);
    } else if (conditions == null) {
      patch.add("/status/conditions", json);
    } else if (current == null) {
      patch.add("/status/conditions/-", json.get(json.size() - 1));
    } else {
      int i = conditions.indexOf(current);
      patch
          .test("/status/conditions/" + i + "/type", type)
          .replace("/status/conditions/" + i, json.get(i));
    }
    @SuppressWarnings("unchecked") // base's own class
    Class<T> version = (Class<T>) base.getClass();
    try {
      return PatchTarget.of(client, version, null, base.getMetadata().getName())
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON), patch.build().toJson().toString());
    } catch (KubernetesClientException e) {
      if (ObjectChanged.isStale(e, true)) {
        throw new ObjectChanged(e.getCode(), e);
      }
      throw e;
    }
  }
}

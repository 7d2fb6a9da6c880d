package dev.ironcore.maintenance.controller;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * Sets one condition on a MachinePool's status with IronCore's semantics ({@link Conditions#set}),
 * only when it changes: re-reads the live pool, and sends nothing when status, reason, message and
 * observedGeneration are already as wanted. The JSON Patch touches only that condition's entry
 * (tested by type at its index) and is guarded by the resourceVersion, so a concurrent writer (the
 * poollet updating {@code Ready}) makes it fail and the caller retries.
 */
public final class PoolConditionWriter {
  private final KubernetesClient client;
  private final Clock clock;

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
   * @return what happened; {@code written=false} when the pool is gone or already shows this
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when the patch is refused (e.g.
   *     the pool changed since the read): retry
   */
  public Write set(String poolName, String type, String status, String reason, String message) {
    MachinePool live = client.resources(MachinePool.class).withName(poolName).get();
    if (live == null) {
      return new Write(false, null);
    }
    List<Condition> conditions = live.getStatus() == null ? null : live.getStatus().getConditions();
    Condition current = Conditions.find(conditions, type);
    Long generation = live.getMetadata().getGeneration();
    if (current != null
        && Objects.equals(current.getStatus(), status)
        && Objects.equals(current.getReason(), reason)
        && Objects.equals(current.getMessage(), message)
        && Objects.equals(current.getObservedGeneration(), generation)) {
      return new Write(false, reason);
    }
    List<Condition> updated =
        Conditions.set(conditions, type, status, reason, message, generation, clock.instant());
    JsonPatch.Builder patch =
        JsonPatch.builder()
            .test("/metadata/resourceVersion", live.getMetadata().getResourceVersion());
    ArrayNode json = Serialization.jsonMapper().valueToTree(updated);
    if (live.getStatus() == null) {
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
    client
        .resources(MachinePool.class)
        .withName(poolName)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch.build().toJson().toString());
    return new Write(true, current == null ? null : current.getReason());
  }
}

package dev.ironcore.maintenance.controller.e2e;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.Conditions;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/** What the health tests play of a pool's agent (the machinepoollet): its status and its Lease. */
final class PoolAgent {
  private PoolAgent() {}

  /** Creates the Lease namespace unless it exists. */
  static void createLeaseNamespace(ControllerWorld world) {
    if (world.client.namespaces().withName(Names.LEASE_NAMESPACE).get() == null) {
      world
          .client
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(Names.LEASE_NAMESPACE)
                  .endMetadata()
                  .build())
          .serverSideApply();
    }
  }

  /** Writes {@code state: Ready} and {@code Ready=True} on the pool's status. */
  static void markReady(ControllerWorld world, String pool) {
    MachinePool p = world.pool(pool);
    MachinePoolStatus status = new MachinePoolStatus();
    status.setState("Ready");
    status.setConditions(
        Conditions.set(null, Names.READY_CONDITION, "True", "Ready", "ok", 1L, Instant.now()));
    p.setStatus(status);
    world.client.resources(MachinePool.class).resource(p).updateStatus();
  }

  /** Creates or renews the pool's Lease with {@code renewTime} now. */
  static void renewLease(ControllerWorld world, String pool) {
    Lease lease =
        new LeaseBuilder()
            .withNewMetadata()
            .withName(pool)
            .withNamespace(Names.LEASE_NAMESPACE)
            .endMetadata()
            .withNewSpec()
            .withHolderIdentity(pool)
            .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
            .endSpec()
            .build();
    world
        .client
        .leases()
        .inNamespace(Names.LEASE_NAMESPACE)
        .resource(lease)
        .forceConflicts()
        .serverSideApply();
  }

  /** The pool's Ready condition, or null. */
  static Condition ready(MachinePool p) {
    return Conditions.find(
        p.getStatus() == null ? null : p.getStatus().getConditions(), Names.READY_CONDITION);
  }
}

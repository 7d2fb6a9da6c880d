package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.capi.CapiMachineStatus;
import dev.ironcore.maintenance.api.capi.NodeRef;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.Toleration;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small builders of in-memory objects for the pure decision tests. */
public final class Fixtures {
  private Fixtures() {}

  public static CapiMachine capiMachine(
      String node, boolean deleting, List<String> finalizers, Map<String, String> annotations) {
    CapiMachine m = new CapiMachine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName("capi-1")
            .withNamespace("ns")
            .withFinalizers(new ArrayList<>(finalizers))
            .withAnnotations(new HashMap<>(annotations))
            .withDeletionTimestamp(deleting ? "2026-11-29T08:00:00Z" : null)
            .build());
    if (node != null) {
      CapiMachineStatus s = new CapiMachineStatus();
      s.setNodeRef(new NodeRef(node));
      m.setStatus(s);
    }
    return m;
  }

  /** A CAPI Machine with both our marks and CAPI's finalizer. */
  public static CapiMachine marked(String node, boolean deleting) {
    return capiMachine(
        node,
        deleting,
        List.of(Names.CAPI_MACHINE_FINALIZER, Names.CLEANUP_FINALIZER),
        Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE));
  }

  public static MachinePool pool(String name, Taint... taints) {
    MachinePool p = new MachinePool();
    p.setMetadata(new ObjectMetaBuilder().withName(name).build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setTaints(new ArrayList<>(List.of(taints)));
    p.setSpec(spec);
    return p;
  }

  public static Machine machine(
      String name, String pool, boolean deleting, Toleration... tolerations) {
    Machine m = new Machine();
    m.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace("ns")
            .withDeletionTimestamp(deleting ? "2026-11-29T08:00:00Z" : null)
            .build());
    MachineSpec spec = new MachineSpec();
    spec.setMachinePoolRef(pool == null ? null : new LocalRef(pool));
    spec.setTolerations(List.of(tolerations));
    m.setSpec(spec);
    return m;
  }

  public static Toleration toleratesMaintenance() {
    return new Toleration(Names.MAINTENANCE_TAINT_KEY, "Exists", null, null);
  }
}

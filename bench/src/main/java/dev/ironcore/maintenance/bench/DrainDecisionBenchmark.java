package dev.ironcore.maintenance.bench;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.capi.CapiMachineStatus;
import dev.ironcore.maintenance.api.capi.NodeRef;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.MachinePoolSpec;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.controller.drain.DrainDecision;
import dev.ironcore.maintenance.controller.drain.DrainInput;
import dev.ironcore.maintenance.controller.drain.DrainStep;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One drain pass's decision for a pool holding {@code machines} bound Machines (half tolerate the
 * taint).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DrainDecisionBenchmark {
  @Param({"10", "1000"})
  public int machines;

  private DrainInput input;

  @Setup
  public void setUp() {
    CapiMachine capi = new CapiMachine();
    capi.setMetadata(
        new ObjectMetaBuilder()
            .withName("node")
            .withNamespace("ns")
            .withDeletionTimestamp("2026-11-29T08:00:00Z")
            .withFinalizers(Names.CAPI_MACHINE_FINALIZER, Names.CLEANUP_FINALIZER)
            .withAnnotations(Map.of(Names.PRE_DRAIN_HOOK_ANNOTATION, Names.PRE_DRAIN_HOOK_VALUE))
            .build());
    CapiMachineStatus status = new CapiMachineStatus();
    status.setNodeRef(new NodeRef("pool-a"));
    capi.setStatus(status);
    MachinePool pool = new MachinePool();
    pool.setMetadata(new ObjectMetaBuilder().withName("pool-a").build());
    MachinePoolSpec spec = new MachinePoolSpec();
    spec.setTaints(new ArrayList<>(DrainDecision.MAINTENANCE_TAINTS));
    pool.setSpec(spec);
    List<Machine> bound = new ArrayList<>();
    for (int i = 0; i < machines; i++) {
      Machine m = new Machine();
      m.setMetadata(new ObjectMetaBuilder().withName("vm-" + i).withNamespace("ns").build());
      MachineSpec ms = new MachineSpec();
      ms.setMachinePoolRef(new LocalRef("pool-a"));
      if (i % 2 == 0) {
        ms.setTolerations(
            List.of(new Toleration(Names.MAINTENANCE_TAINT_KEY, "Exists", null, null)));
      }
      m.setSpec(ms);
      bound.add(m);
    }
    input = new DrainInput(capi, true, pool, bound);
  }

  @Benchmark
  public DrainStep decide() {
    return DrainDecision.next(input);
  }
}

package dev.ironcore.maintenance.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The pure admission core, bytes in to reply out, without HTTP or TLS: decode the review, run the
 * CAPI Machine mutator (finalizer + pre-drain hook), build the JSON Patch, encode the reply.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dironcore.maintenance.log.level=WARN")
public class AdmissionBenchmark {
  private byte[] body;
  private AdmissionHandler capiMutator;
  private AdmissionHandler capiMutatorWithSelector;

  @Setup
  public void setUp() {
    body = Reviews.capiMachineCreate();
    capiMutator =
        AdmissionRoutes.create(LabelSelector.everything()).get(AdmissionRoutes.MUTATE_CAPI_MACHINE);
    capiMutatorWithSelector =
        AdmissionRoutes.create(
                LabelSelector.parse("cluster.x-k8s.io/cluster-name in (prod,stage),!skip"))
            .get(AdmissionRoutes.MUTATE_CAPI_MACHINE);
  }

  @Benchmark
  public ObjectNode mutateCapiMachineCreate() {
    return AdmissionReviews.reply(body, capiMutator);
  }

  @Benchmark
  public ObjectNode mutateCapiMachineCreateWithSelector() {
    return AdmissionReviews.reply(body, capiMutatorWithSelector);
  }
}

package dev.ironcore.maintenance.server.certs;

import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.TestCluster;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A continuous stream of admission calls through the API server: threads running {@code kubectl
 * apply} in a loop, alternating an UPDATE of a bound IronCore Machine (mutating {@code
 * /mutate/machine} and validating {@code /validate/machine}) and of a MachinePool ({@code
 * /validate/machinepool}), each with a changed annotation so every apply is a real update; plus one
 * thread of conversion reads: {@code kubectl get} in v1alpha1 of a Machine, of the namespace's
 * Machines (a LIST) and of the pool, all stored as v1alpha2, so the API server answers each only
 * after calling the CRDs' conversion webhook ({@code /convert}). Every non-zero kubectl exit, and
 * every read not answered in v1alpha1, counts as a failed call, with its message kept.
 */
final class AdmissionLoad implements AutoCloseable {
  static final String V1_MACHINES = "machines.v1alpha1.compute.ironcore.dev";
  static final String V1_POOLS = "machinepools.v1alpha1.compute.ironcore.dev";

  private final TestCluster cp;
  private final String namespace;
  private final String label;
  private final String pool;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger ok = new AtomicInteger();
  private final AtomicInteger reads = new AtomicInteger();
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private final List<Thread> threads = new ArrayList<>();

  AdmissionLoad(TestCluster cp, String namespace, String label, String pool, int threadCount) {
    this.cp = cp;
    this.namespace = namespace;
    this.label = label;
    this.pool = pool;
    for (int t = 0; t < threadCount; t++) {
      int n = t;
      Thread th = new Thread(() -> loop(n), "admission-load-" + t);
      th.setDaemon(true);
      threads.add(th);
    }
    Thread reader = new Thread(this::readLoop, "conversion-reads");
    reader.setDaemon(true);
    threads.add(reader);
  }

  /** The pool, with the label our webhook configurations select (validated on create). */
  String poolYaml(long tick) {
    return """
        apiVersion: compute.ironcore.dev/v1alpha1
        kind: MachinePool
        metadata:
          name: %s
          labels: {%s}
          annotations: {tick: "%d"}
        spec:
          providerID: ironcore://%s
          taints: [{key: example.com/k, effect: NoSchedule}]
        """
        .formatted(pool, label, tick, pool);
  }

  String machineYaml(int thread, long tick) {
    return """
        apiVersion: compute.ironcore.dev/v1alpha1
        kind: Machine
        metadata:
          name: vm-%d
          namespace: %s
          labels: {%s}
          annotations: {tick: "%d"}
        spec:
          machineClassRef: {name: x3-small}
          machinePoolRef: {name: %s}
          tolerations: [{key: example.com/k, operator: Exists}]
        """
        .formatted(thread, namespace, label, tick, pool);
  }

  /** Creates each thread's Machine (so the reads have objects to convert), then starts all. */
  AdmissionLoad start() {
    for (int t = 0; t < threads.size() - 1; t++) {
      KubectlResult r = cp.kubectlTool().runWithInput(machineYaml(t, 0), "apply", "-f", "-");
      if (!r.ok()) {
        throw new IllegalStateException("creating vm-" + t + ": " + r.stderr().strip());
      }
    }
    threads.forEach(Thread::start);
    return this;
  }

  private void readLoop() {
    long n = 0;
    while (running.get()) {
      String[] args =
          switch ((int) (n++ % 3)) {
            case 0 -> new String[] {"get", V1_MACHINES, "vm-0", "-n", namespace, "-o", "json"};
            case 1 -> new String[] {"get", V1_MACHINES, "-n", namespace, "-o", "json"};
            default -> new String[] {"get", V1_POOLS, pool, "-o", "json"};
          };
      KubectlResult r = cp.kubectl(args);
      if (r.ok()
          && r.stdout().contains("\"apiVersion\": \"compute.ironcore.dev/v1alpha1\"")
          && !r.stdout().contains("compute.ironcore.dev/v1alpha2")) {
        reads.incrementAndGet();
      } else {
        failures.add(
            "conversion read " + String.join(" ", args) + ": " + r.stderr().strip() + r.stdout());
      }
    }
  }

  /** Successful conversion reads (each answered in v1alpha1 from v1alpha2 storage) so far. */
  int reads() {
    return reads.get();
  }

  private void loop(int thread) {
    long tick = 0;
    while (running.get()) {
      tick++;
      String yaml = tick % 2 == 0 ? poolYaml(tick * 100 + thread) : machineYaml(thread, tick);
      KubectlResult r = cp.kubectlTool().runWithInput(yaml, "apply", "-f", "-");
      if (r.ok()) {
        ok.incrementAndGet();
      } else {
        failures.add(r.stderr().strip());
      }
    }
  }

  /** Successful applies so far. */
  int ok() {
    return ok.get();
  }

  /** Messages of failed applies and conversion reads so far. */
  List<String> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(120_000);
    }
  }
}

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
 * /validate/machinepool}), each with a changed annotation so every apply is a real update. Every
 * non-zero kubectl exit counts as a failed call, with its message kept.
 */
final class AdmissionLoad implements AutoCloseable {
  private final TestCluster cp;
  private final String namespace;
  private final String label;
  private final String pool;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger ok = new AtomicInteger();
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

  AdmissionLoad start() {
    threads.forEach(Thread::start);
    return this;
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

  /** Messages of failed applies so far. */
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

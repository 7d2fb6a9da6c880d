package dev.ironcore.maintenance.server.e2e;

import dev.ironcore.maintenance.testkit.KubectlResult;
import dev.ironcore.maintenance.testkit.TestCluster;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A continuous stream of {@code kubectl apply} CREATEs through the API server, each of a new object
 * that a webhook must mutate, cycling through: an IronCore Machine in v1alpha1 ({@code
 * /mutate/machine}, {@code /validate/machine}, and {@code /convert} to store it in v1alpha2), a
 * CAPI Machine ({@code /mutate/capi-machine}), a MachinePool in v1alpha1 with a NoExecute taint
 * ({@code /convert}, {@code /mutate/machinepool} for {@code timeAdded}, {@code
 * /validate/machinepool}), and a v1alpha2 Machine with a 256 KiB field (server-side apply), whose
 * calls take longer; plus one thread of conversion reads (a v1alpha1 LIST of the namespace's
 * Machines). Every outcome is kept with the phase the test was in when it ended.
 */
final class ApplyStream implements AutoCloseable {
  static final String LABEL = "e2e.ironcore.dev/apply-stream";

  /** One apply or read and how it ended. */
  record Outcome(String kind, String name, boolean ok, String error, String phase) {}

  private final TestCluster cp;
  private final String ns;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger ok = new AtomicInteger();
  private final List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
  private final List<Thread> threads = new ArrayList<>();
  private volatile String phase = "up";

  ApplyStream(TestCluster cp, String ns, int applyThreads) {
    this.cp = cp;
    this.ns = ns;
    for (int t = 0; t < applyThreads; t++) {
      int n = t;
      threads.add(new Thread(() -> applyLoop(n), "apply-stream-" + t));
    }
    threads.add(new Thread(this::readLoop, "apply-stream-reads"));
    threads.forEach(t -> t.setDaemon(true));
  }

  ApplyStream start() {
    threads.forEach(Thread::start);
    return this;
  }

  /** The phase recorded with the outcomes that end from now on. */
  void phase(String p) {
    phase = p;
  }

  /** Successful applies so far. */
  int ok() {
    return ok.get();
  }

  List<Outcome> outcomes() {
    synchronized (outcomes) {
      return List.copyOf(outcomes);
    }
  }

  private void applyLoop(int thread) {
    for (long tick = 0; running.get(); tick++) {
      String name = "t" + thread + "-" + tick;
      String kind;
      KubectlResult r;
      switch ((int) (tick % 4)) {
        case 0 -> {
          kind = "Machine";
          name = "vm-" + name;
          r = apply(machine(name, "compute.ironcore.dev/v1alpha1", ""));
        }
        case 1 -> {
          kind = "CapiMachine";
          name = "node-" + name;
          r = apply(capiMachine(name));
        }
        case 2 -> {
          kind = "MachinePool";
          name = ns + "-pool-" + name;
          r = apply(pool(name));
        }
        default -> {
          kind = "Machine";
          name = "big-" + name;
          r =
              apply(
                  machine(
                      name, "compute.ironcore.dev/v1alpha2", "  blob: " + "x".repeat(256 * 1024)),
                  "--server-side");
        }
      }
      record(kind, name, r.ok(), r.ok() ? null : r.stderr().strip());
    }
  }

  private void readLoop() {
    while (running.get()) {
      KubectlResult r =
          cp.kubectl("get", "machines.v1alpha1.compute.ironcore.dev", "-n", ns, "-o", "json");
      boolean converted =
          r.ok()
              && !r.stdout().contains("compute.ironcore.dev/v1alpha2")
              && (r.stdout().contains("\"apiVersion\": \"compute.ironcore.dev/v1alpha1\"")
                  || !r.stdout().contains("\"kind\": \"Machine\""));
      record(
          "read",
          "v1alpha1 list",
          converted,
          converted ? null : r.ok() ? "not converted: " + r.stdout() : r.stderr().strip());
    }
  }

  private void record(String kind, String name, boolean success, String error) {
    if (success && !kind.equals("read")) {
      ok.incrementAndGet();
    }
    outcomes.add(new Outcome(kind, name, success, error, phase));
  }

  private KubectlResult apply(String yaml, String... extra) {
    List<String> args = new ArrayList<>(List.of("apply"));
    args.addAll(List.of(extra));
    args.addAll(List.of("-f", "-"));
    return cp.kubectlTool().runWithInput(yaml, args.toArray(new String[0]));
  }

  private String machine(String name, String apiVersion, String extraSpec) {
    return """
        apiVersion: %s
        kind: Machine
        metadata: {name: %s, namespace: %s}
        spec:
          machineClassRef: {name: x3-small}
          machinePoolRef: {name: pool-a}
        %s
        """
        .formatted(apiVersion, name, ns, extraSpec);
  }

  private String capiMachine(String name) {
    return """
        apiVersion: cluster.x-k8s.io/v1beta2
        kind: Machine
        metadata: {name: %s, namespace: %s}
        spec: {clusterName: c}
        """
        .formatted(name, ns);
  }

  private String pool(String name) {
    return """
        apiVersion: compute.ironcore.dev/v1alpha1
        kind: MachinePool
        metadata:
          name: %s
          labels: {%s: %s}
        spec:
          providerID: ironcore://%s
          taints: [{key: example.com/k, effect: NoExecute}]
        """
        .formatted(name, LABEL, ns, name);
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(120_000);
    }
  }
}

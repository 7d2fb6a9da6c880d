package dev.ironcore.maintenance.bench;

import static dev.ironcore.maintenance.bench.WebhookBench.f;
import static dev.ironcore.maintenance.bench.WebhookReport.line;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Markdown of {@link FleetBench}'s figures. */
final class FleetReport {
  final int machines;
  final int pools;
  final int drainSize;
  final Duration grace;
  final ShippedSettings shipped;
  final double populateSeconds;
  final double settleSeconds;
  double readyMillis;

  /** The controller's CPU time (user + system) from spawn to caches synced, in ms. */
  double readyCpuMillis;

  final Map<String, Double> rss = new LinkedHashMap<>();
  double peakRss;
  FleetBench.LeaseResult lease;
  final List<FleetBench.DrainResult> drains = new ArrayList<>();

  FleetReport(
      int machines,
      int pools,
      int drainSize,
      Duration grace,
      ShippedSettings shipped,
      double populateSeconds,
      double settleSeconds) {
    this.machines = machines;
    this.pools = pools;
    this.drainSize = drainSize;
    this.grace = grace;
    this.shipped = shipped;
    this.populateSeconds = populateSeconds;
    this.settleSeconds = settleSeconds;
  }

  String render() {
    StringBuilder md = new StringBuilder("## Controller at fleet scale (local kube-apiserver)\n\n");
    md.append(
        String.format(
            "%,d IronCore Machines over %,d MachinePools (%d pools with %,d bound Machines each for the drain runs, the"
                + " rest spread evenly), one Lease and one CAPI Machine (with `status.nodeRef`) per pool; created in %s s;"
                + " the controller starts once the machine is quiet again (all cores' CPU busy under 25%% for 3 s in a row:"
                + " %s s after the population; the API server, etcd and the bench's own JVM work off the creations)."
                + " Controller: its own process as `manifests/deploy/controller_deployment.yaml`"
                + " runs it (%s), in its pod's environment (fabric8's in-cluster configuration"
                + " with a token of the shipped ServiceAccount, its RBAC, no kubeconfig),"
                + " grace period %d s,"
                + " its default workers (2 per loop, 16 for pool health).%n%n",
            machines,
            pools,
            FleetBench.DRAIN_RUNS,
            drainSize,
            f(populateSeconds),
            f(settleSeconds),
            shipped.describe(),
            grace.toSeconds()));
    md.append(
        "### Start-up and memory (RSS in MiB)\n\n| spawn → caches synced (`/readyz` 200) | its CPU"
            + " until then (s; unlike the wall time, not the API server's)");
    rss.keySet().forEach(k -> md.append(" | RSS ").append(k));
    md.append(" | peak RSS (VmHWM) |\n|---");
    rss.keySet().forEach(k -> md.append("|---"));
    md.append("|---|---|\n| ").append(f(readyMillis / 1000)).append(" s");
    md.append(" | ").append(f(readyCpuMillis / 1000)).append(" s");
    rss.values().forEach(v -> md.append(" | ").append(f(v)));
    md.append(" | ").append(f(peakRss)).append(" |\n");

    md.append("\n### ")
        .append(String.format("%,d", pools))
        .append(" pools whose Leases stop together\n\n");
    md.append("Every Lease renewed once (")
        .append(f(lease.renewSeconds()))
        .append(
            " s for all), then never again; lateness = time the bench saw `Ready=Unknown` minus (time of that pool's"
                + " renewal + grace).\n\n");
    md.append(
        "| pools | Unknown within grace + 1 s | lateness p50 / p99 / max (s) | Ready status writes (API server) | pool updates after Unknown | pools with a `PoolUnknown` Event (s after the last Unknown) |\n|---|---|---|---|---|---|\n");
    md.append("| ")
        .append(lease.pools())
        .append(" | ")
        .append(lease.inTime())
        .append(" | ")
        .append(f(lease.p50LateSeconds()))
        .append(" / ")
        .append(f(lease.p99LateSeconds()))
        .append(" / ")
        .append(f(lease.maxLateSeconds()))
        .append(" | ")
        .append(lease.statusWrites())
        .append(" | ")
        .append(lease.extraUpdates())
        .append(" | ")
        .append(lease.poolUnknownEvents())
        .append(" (")
        .append(f(lease.eventsAfterSeconds()))
        .append(" s) |\n");

    md.append("\n### Drain of a pool with ")
        .append(String.format("%,d", drainSize))
        .append(" bound Machines (alternating bare, controller, controller, bare)\n\n")
        .append(
            "Controller: from the CAPI Machine's DELETE to the pre-drain hook's removal (taints, evictions with an"
                + " `Evicted` event each, the poollet simulator at zero delay releasing its finalizer). Bare client: 2 threads"
                + " (as the controller's 2 eviction workers), each Machine DELETE then a JSON Patch removing the finalizer,"
                + " until the last Machine is gone. API requests from the API server's `apiserver_request_total`, all"
                + " clients, WATCH excluded, up to 2 s after the end.\n\n");
    md.append(
        "| run | who | seconds | API requests | writes | writes per Machine | requests by verb and resource |\n|---|---|---|---|---|---|---|\n");
    int i = 1;
    for (FleetBench.DrainResult d : drains) {
      md.append("| ")
          .append(i++)
          .append(" | ")
          .append(d.who())
          .append(" | ")
          .append(f(d.seconds()))
          .append(" | ")
          .append(d.requests().requests())
          .append(" | ")
          .append(d.requests().writes())
          .append(" | ")
          .append(f(d.requests().writes() / (double) drainSize))
          .append(" | ")
          .append(d.requests())
          .append(" |\n");
    }
    md.append("\n### Targets\n\n").append(targets());
    return md.toString();
  }

  double drainRatio() {
    return mean("controller") / mean("bare");
  }

  private double mean(String who) {
    return drains.stream()
        .filter(d -> d.who().startsWith(who))
        .mapToDouble(FleetBench.DrainResult::seconds)
        .average()
        .orElse(Double.NaN);
  }

  /**
   * Writes per drained Machine by the controller runs: all, and without the poollet's own finalizer
   * PATCH.
   */
  double[] writesPerMachine() {
    double all = 0;
    double ours = 0;
    int n = 0;
    for (FleetBench.DrainResult d : drains) {
      if (d.who().startsWith("controller")) {
        all += d.requests().writes() / (double) drainSize;
        // not the controller's: the poollet's finalizer PATCHes and the bench's CAPI Machine DELETE
        long notOurs =
            d.requests().get("PATCH machines.compute")
                + d.requests().get("DELETE machines.cluster");
        ours += (d.requests().writes() - notOurs) / (double) drainSize;
        n++;
      }
    }
    return new double[] {all / n, ours / n};
  }

  String targets() {
    StringBuilder md = new StringBuilder("| target | measured | met |\n|---|---|---|\n");
    md.append(
        line(
            "controller RSS ≤ 192 MiB with "
                + String.format("%,d", machines)
                + " Machines and "
                + pools
                + " pools cached (peak VmHWM)",
            f(peakRss) + " MiB",
            peakRss <= 192));
    md.append(
        line(
            "caches synced ≤ 3 s (spawn → `/readyz`)",
            f(readyMillis / 1000)
                + " s (the controller's CPU until then: "
                + f(readyCpuMillis / 1000)
                + " s)",
            readyMillis <= 3000));
    double r = drainRatio();
    md.append(
        line(
            "drain of " + String.format("%,d", drainSize) + " Machines ≤ 1.2× the bare client",
            f(mean("controller")) + " s / " + f(mean("bare")) + " s = " + f(r) + "×",
            r <= 1.2));
    double[] w = writesPerMachine();
    md.append(
        line(
            "≤ 3 API writes per drained Machine (the controller's own)",
            f(w[1])
                + " by the controller; "
                + f(w[0])
                + " by all clients, i.e. with the poollet's finalizer PATCH and the bench's CAPI"
                + " Machine DELETE",
            w[1] <= 3));
    md.append(
        line(
            "each pool Unknown within grace + 1 s, written once",
            lease.inTime()
                + " of "
                + lease.pools()
                + " in time, max "
                + f(lease.maxLateSeconds())
                + " s late; "
                + lease.statusWrites()
                + " status writes, "
                + lease.extraUpdates()
                + " updates after Unknown",
            lease.inTime() == lease.pools()
                && lease.statusWrites() == lease.pools()
                && lease.extraUpdates() == 0));
    return md.toString();
  }
}

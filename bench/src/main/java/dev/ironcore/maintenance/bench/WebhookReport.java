package dev.ironcore.maintenance.bench;

import static dev.ironcore.maintenance.bench.WebhookBench.f;

import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Markdown of {@link WebhookBench}'s figures: every figure per instance, ratios, targets. */
final class WebhookReport {
  private WebhookReport() {}

  static String render(
      List<WebhookBench.Instance> all,
      List<WebhookBench.Instance> context,
      Map<String, Long> reviewSizes,
      ShippedSettings shipped,
      int boundMachines) {
    List<WebhookBench.Instance> ours = of(all, "ours");
    List<WebhookBench.Instance> ref = of(all, "reference");
    StringBuilder md = new StringBuilder();
    md.append("## Webhook: ours / controller-runtime reference\n\n");
    md.append("Order of the runs (A/B alternating): ")
        .append(all.stream().map(i -> i.server + " r" + i.round).collect(Collectors.joining(", ")))
        .append(". Reviews: ")
        .append(
            reviewSizes.entrySet().stream()
                .map(e -> "`" + e.getKey() + "` " + e.getValue() + " B")
                .collect(Collectors.joining(", ")))
        .append(" (CREATE). Our server as `manifests/deploy/webhook_deployment.yaml` runs it: ")
        .append(shipped.describe())
        .append(".\n\n");
    md.append(
        boundMachines > 0
            ? "Our server runs as installed: in the webhook pod's environment (fabric8's in-cluster"
                + " configuration, a token of the shipped ServiceAccount, its RBAC, no kubeconfig)"
                + " against a local kube-apiserver with our CRDs and "
                + boundMachines
                + " Machines bound to one MachinePool, so its eviction warnings are on (fabric8"
                + " client, discovery); after the cold phase each of our instances answers "
                + WebhookBench.LOOKUPS
                + " MachinePool writes that add a NoExecute taint, one at a time, each a LIST of the"
                + " pool's Machines (below). The reference does only its CAPI mutation.\n\n"
            : "Our server runs WITHOUT a cluster (no `--controlplane-dir`): eviction warnings off,"
                + " lighter than an installed pod.\n\n");

    md.append("### Start-up and memory\n\n");
    md.append(
        "| server | round | ready after spawn (ms) | CPU until ready (ms) | RSS ready (MiB) | after cold | after lookups | after saturation | after 1,000 req/s | peak RSS (VmHWM) |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (WebhookBench.Instance i : all) {
      md.append("| ")
          .append(i.server)
          .append(" | ")
          .append(i.round)
          .append(" | ")
          .append(f(i.readyMillis))
          .append(" | ")
          .append(f(i.readyCpuMillis));
      for (String k :
          List.of("ready", "after cold", "after lookups", "after saturation", "after fixed rate")) {
        md.append(" | ").append(f(i.rssMiB.getOrDefault(k, Double.NaN)));
      }
      md.append(" | ").append(f(i.peakRssMiB)).append(" |\n");
    }

    md.append(
        "\n### Throughput (req/s, h2load; saturation: h2 4 connections × 16 streams, h1 16 connections)\n\n");
    md.append(header("ours/reference (mean)", ours, ref));
    for (String run : keys(all, "cold", "saturation")) {
      md.append(row(run, ours, ref, r -> r.reqPerSec(), v -> f(v)))
          .append(" ")
          .append(
              f(
                  mean(ours, run, H2load.Result::reqPerSec)
                      / mean(ref, run, H2load.Result::reqPerSec)))
          .append(" |\n");
    }

    md.append(
        "\n### Latency (ms, p50 / p99 / p99.9 from h2load's per-request log; fixed rate: 10 clients × 100 req/s)\n\n");
    md.append(header("p99 ours/reference (mean)", ours, ref));
    for (String run : keys(all, "cold", "rate")) {
      md.append("| ")
          .append(
              run.startsWith("rate")
                  ? run.replace("rate", "1,000 req/s")
                  : run + " (first 10,000)");
      for (List<WebhookBench.Instance> side : List.of(ours, ref)) {
        for (WebhookBench.Instance i : side) {
          Latencies l = i.runs.get(run).latencies();
          md.append(" | ")
              .append(f(l.quantileMillis(0.5)))
              .append(" / ")
              .append(f(l.quantileMillis(0.99)))
              .append(" / ")
              .append(f(l.quantileMillis(0.999)));
        }
      }
      md.append(" | ")
          .append(
              f(
                  mean(ours, run, r -> r.latencies().quantileMillis(0.99))
                      / mean(ref, run, r -> r.latencies().quantileMillis(0.99))))
          .append(" |\n");
    }

    List<WebhookBench.Instance> withLookups =
        ours.stream().filter(i -> i.runs.containsKey(WebhookBench.POOL_LOOKUPS)).toList();
    if (!withLookups.isEmpty()) {
      md.append(
          "\n### Eviction-warning lookups (ours only; MachinePool UPDATE adding a NoExecute taint,"
              + " one at a time over h2, each answered with the warning after a LIST of the pool's"
              + " Machines)\n\n| round | req/s | p50 / p99 / max (ms) |\n|---|---|---|\n");
      for (WebhookBench.Instance i : withLookups) {
        H2load.Result r = i.runs.get(WebhookBench.POOL_LOOKUPS);
        md.append("| ")
            .append(i.round)
            .append(" | ")
            .append(f(r.reqPerSec()))
            .append(" | ")
            .append(f(r.latencies().quantileMillis(0.5)))
            .append(" / ")
            .append(f(r.latencies().quantileMillis(0.99)))
            .append(" / ")
            .append(f(r.latencies().quantileMillis(1.0)))
            .append(" |\n");
      }
    }

    md.append(
        "\n### Context: other settings of our server, one short run each (after the rounds)\n\n");
    md.append(
        "| variant | ready after spawn (ms) | CPU until ready (ms) | saturation h2 capi-machine (req/s) | RSS after saturation (MiB) | peak RSS (MiB) |\n|---|---|---|---|---|---|\n");
    for (WebhookBench.Instance c : context) {
      md.append("| ")
          .append(c.server)
          .append(" | ")
          .append(f(c.readyMillis))
          .append(" | ")
          .append(f(c.readyCpuMillis))
          .append(" | ")
          .append(f(c.runs.get("saturation h2 " + WebhookBench.CAPI).reqPerSec()))
          .append(" | ")
          .append(f(c.rssMiB.get("after saturation")))
          .append(" | ")
          .append(f(c.peakRssMiB))
          .append(" |\n");
    }

    md.append("\n### Targets\n\n").append(targets(ours, ref, boundMachines > 0));
    return md.toString();
  }

  /** The targets table (also copied into the README). */
  static String targets(
      List<WebhookBench.Instance> ours, List<WebhookBench.Instance> ref, boolean withCluster) {
    StringBuilder md = new StringBuilder("| target | measured | met |\n|---|---|---|\n");
    double warm = Double.MAX_VALUE;
    StringBuilder warmText = new StringBuilder();
    for (String run : keys(ours, "saturation")) {
      double r =
          mean(ours, run, H2load.Result::reqPerSec) / mean(ref, run, H2load.Result::reqPerSec);
      warm = Math.min(warm, r);
      warmText.append(run.substring("saturation ".length())).append(" ").append(f(r)).append("×; ");
    }
    md.append(
        line("webhook throughput warm ≥ 3× reference", warmText.toString().trim(), warm >= 3));
    String cold = "cold h2 " + WebhookBench.CAPI;
    double coldRatio =
        mean(ours, cold, H2load.Result::reqPerSec) / mean(ref, cold, H2load.Result::reqPerSec);
    md.append(line("first 10,000 requests ≥ 2× reference", f(coldRatio) + "×", coldRatio >= 2));
    double p99 = 0;
    for (String run : keys(ours, "rate")) {
      for (WebhookBench.Instance i : ours) {
        p99 = Math.max(p99, i.runs.get(run).latencies().quantileMillis(0.99));
      }
    }
    md.append(
        line(
            "p99 ≤ 1 ms at 1,000 req/s (worst of h2/h1, both reviews, all rounds)",
            f(p99) + " ms",
            p99 <= 1));
    double rss = ours.stream().mapToDouble(i -> i.peakRssMiB).max().orElse(Double.NaN);
    md.append(
        line(
            "webhook RSS ≤ 128 MiB under saturation, shipped settings (peak VmHWM; "
                + (withCluster
                    ? "as installed: a cluster, eviction-warning lookups)"
                    : "NO cluster: lighter than installed)"),
            f(rss) + " MiB",
            rss <= 128));
    double ready = ours.stream().mapToDouble(i -> i.readyMillis).max().orElse(Double.NaN);
    md.append(
        line(
            "ready to serve ≤ 0.8 s after process start (worst round)",
            f(ready)
                + " ms (CPU consumed until then: "
                + f(ours.stream().mapToDouble(i -> i.readyCpuMillis).max().orElse(Double.NaN))
                + " ms)",
            ready <= 800));
    return md.toString();
  }

  static String line(String target, String measured, boolean met) {
    return "| " + target + " | " + measured + " | " + (met ? "yes" : "**no**") + " |\n";
  }

  private static List<WebhookBench.Instance> of(List<WebhookBench.Instance> all, String server) {
    return all.stream()
        .filter(i -> i.server.equals(server))
        .sorted((a, b) -> a.round - b.round)
        .toList();
  }

  private static List<String> keys(List<WebhookBench.Instance> all, String... prefixes) {
    return all.get(0).runs.keySet().stream()
        .filter(k -> List.of(prefixes).stream().anyMatch(k::startsWith))
        .toList();
  }

  private static double mean(
      List<WebhookBench.Instance> side, String run, ToDoubleFunction<H2load.Result> v) {
    return side.stream()
        .mapToDouble(i -> v.applyAsDouble(i.runs.get(run)))
        .average()
        .orElse(Double.NaN);
  }

  private static String header(
      String last, List<WebhookBench.Instance> ours, List<WebhookBench.Instance> ref) {
    StringBuilder h = new StringBuilder("| run");
    StringBuilder sep = new StringBuilder("|---");
    for (List<WebhookBench.Instance> side : List.of(ours, ref)) {
      for (WebhookBench.Instance i : side) {
        h.append(" | ").append(i.server).append(" r").append(i.round);
        sep.append("|---");
      }
    }
    return h.append(" | ").append(last).append(" |\n").append(sep).append("|---|\n").toString();
  }

  private static String row(
      String run,
      List<WebhookBench.Instance> ours,
      List<WebhookBench.Instance> ref,
      ToDoubleFunction<H2load.Result> v,
      java.util.function.DoubleFunction<String> fmt) {
    StringBuilder r =
        new StringBuilder("| ").append(run.startsWith("cold") ? run + " (first 10,000)" : run);
    for (List<WebhookBench.Instance> side : List.of(ours, ref)) {
      for (WebhookBench.Instance i : side) {
        r.append(" | ").append(fmt.apply(v.applyAsDouble(i.runs.get(run))));
      }
    }
    return r.append(" |").toString();
  }
}

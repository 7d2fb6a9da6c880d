package dev.ironcore.maintenance.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API server's own request counter {@code apiserver_request_total}, summed by verb and resource
 * (resource.first-group-label, e.g. {@code machines.compute}, {@code machines.cluster}, with
 * subresource), read from its {@code /metrics}. The difference of two snapshots is what all clients
 * asked between them.
 */
record ApiRequestCounts(Map<String, Long> byVerbResource) {
  static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE", "APPLY");
  private static final Pattern LINE =
      Pattern.compile("^apiserver_request_total\\{([^}]*)} ([0-9.e+]+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  static ApiRequestCounts read(KubernetesClient client) {
    Map<String, Long> counts = new TreeMap<>();
    for (String line : client.raw("/metrics").split("\n")) {
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String group = labels.getOrDefault("group", "");
      // machines of compute.ironcore.dev and of cluster.x-k8s.io share a resource name
      String resource =
          labels.getOrDefault("resource", "")
              + (group.isEmpty()
                  ? ""
                  : "."
                      + group.substring(
                          0, group.indexOf('.') < 0 ? group.length() : group.indexOf('.')));
      String sub = labels.getOrDefault("subresource", "");
      String key = labels.get("verb") + " " + resource + (sub.isEmpty() ? "" : "/" + sub);
      counts.merge(key, (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return new ApiRequestCounts(counts);
  }

  /** Requests between {@code before} and this snapshot, zero entries dropped. */
  ApiRequestCounts minus(ApiRequestCounts before) {
    Map<String, Long> d = new TreeMap<>();
    byVerbResource.forEach(
        (k, v) -> {
          long n = v - before.byVerbResource.getOrDefault(k, 0L);
          if (n != 0) {
            d.put(k, n);
          }
        });
    return new ApiRequestCounts(d);
  }

  long writes() {
    return byVerbResource.entrySet().stream()
        .filter(e -> WRITES.contains(e.getKey().split(" ")[0]))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** Everything except WATCH (long-running; one per informer, not per object). */
  long requests() {
    return byVerbResource.entrySet().stream()
        .filter(e -> !e.getKey().startsWith("WATCH"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  long get(String verbResource) {
    return byVerbResource.getOrDefault(verbResource, 0L);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    byVerbResource.forEach(
        (k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append(" ").append(v));
    return s.toString();
  }
}

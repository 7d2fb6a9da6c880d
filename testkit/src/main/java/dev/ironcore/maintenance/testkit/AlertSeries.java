package dev.ironcore.maintenance.testkit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series our sample alerts ({@code manifests/monitoring/prometheus_rule.yaml}) select, so a
 * test can check that the process they watch exports each of them: an alert on a metric nobody
 * exports (a renamed meter, a label that does not exist) never fires, and nothing says so.
 */
public final class AlertSeries {
  /** Names of ours and of the client-go-style metrics we export; {@code up} is Prometheus'. */
  private static final Pattern SELECTOR =
      Pattern.compile(
          "\\b((?:ironcore_maintenance|leader_election|workqueue|controller_runtime)_[a-zA-Z0-9_]+)"
              + "(\\{([^}]*)\\})?");

  private static final Pattern MATCHER =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*=\\s*\"([^\"]*)\"");

  private AlertSeries() {}

  /** One selector of an alert's expression: a metric name and the labels it must have (=). */
  public record Selector(String alert, String metric, Map<String, String> labels) {
    /**
     * @param scrape a Prometheus text exposition ({@code GET /metrics})
     * @return whether a sample of {@link #metric} with every one of {@link #labels} is in it
     */
    public boolean matches(String scrape) {
      for (String line : scrape.split("\n")) {
        if (line.startsWith("#")) {
          continue;
        }
        String rest;
        if (line.startsWith(metric + "{")) {
          rest = line.substring(metric.length() + 1, line.indexOf('}'));
        } else if (line.startsWith(metric + " ")) {
          rest = "";
        } else {
          continue;
        }
        Map<String, String> has = AlertSeries.labels(rest);
        if (has.entrySet().containsAll(labels.entrySet())) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return alert + ": " + metric + labels;
    }
  }

  /**
   * @param ruleName {@code metadata.name} of a PrometheusRule in {@code
   *     manifests/monitoring/prometheus_rule.yaml}
   * @return every selector of our metrics in its alerts' expressions, in file order
   * @throws IllegalStateException when the file has no such rule, or the rule no alert
   */
  public static List<Selector> of(String ruleName) {
    Path file = ManifestPaths.overlay("monitoring").resolve("prometheus_rule.yaml");
    String yaml;
    try {
      yaml = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
    List<Selector> out = new ArrayList<>();
    for (GenericKubernetesResource doc : RenderedManifests.parse(yaml)) {
      if (!"PrometheusRule".equals(doc.getKind())
          || !ruleName.equals(doc.getMetadata().getName())) {
        continue;
      }
      Map<?, ?> spec = (Map<?, ?>) doc.getAdditionalProperties().get("spec");
      for (Object group : (List<?>) spec.get("groups")) {
        for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
          Map<?, ?> r = (Map<?, ?>) rule;
          Matcher m = SELECTOR.matcher(String.valueOf(r.get("expr")));
          while (m.find()) {
            out.add(
                new Selector(
                    String.valueOf(r.get("alert")),
                    m.group(1),
                    m.group(3) == null ? Map.of() : labels(m.group(3))));
          }
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException(file + ": no PrometheusRule " + ruleName + " with alerts");
    }
    return out;
  }

  /**
   * {@code a="x",b="y"} as a map; {@code =~} and {@code !=} matchers are not matched by {@link
   * #MATCHER} and so left out.
   */
  private static Map<String, String> labels(String matchers) {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = MATCHER.matcher(matchers);
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    return out;
  }
}

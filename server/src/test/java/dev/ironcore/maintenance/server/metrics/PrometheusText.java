package dev.ironcore.maintenance.server.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads samples out of a Prometheus text exposition, for tests. Label values must not contain
 * escaped quotes.
 */
public final class PrometheusText {
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

  private PrometheusText() {}

  /**
   * @param text the exposition
   * @param name the sample name, e.g. {@code ironcore_maintenance_webhook_requests_total}
   * @param labels name, value, name, value, ...: the sample must have these (and may have more)
   * @return the value of the first matching sample, empty when none matches
   */
  public static Optional<Double> value(String text, String name, String... labels) {
    Map<String, String> wanted = new HashMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      wanted.put(labels[i], labels[i + 1]);
    }
    for (String line : text.split("\n")) {
      Matcher sample = SAMPLE.matcher(line.trim());
      if (!sample.matches() || !sample.group(1).equals(name)) {
        continue;
      }
      Map<String, String> have = new HashMap<>();
      Matcher label = LABEL.matcher(sample.group(2) == null ? "" : sample.group(2));
      while (label.find()) {
        have.put(label.group(1), label.group(2));
      }
      if (have.entrySet().containsAll(wanted.entrySet())) {
        return Optional.of(Double.parseDouble(sample.group(3)));
      }
    }
    return Optional.empty();
  }
}

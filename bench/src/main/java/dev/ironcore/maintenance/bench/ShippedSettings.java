package dev.ironcore.maintenance.bench;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a shipped Deployment ({@code manifests/deploy}) gives its container: the literal environment
 * (e.g. {@code JAVA_TOOL_OPTIONS}, {@code MALLOC_ARENA_MAX}), the flags that tune the process
 * (everything but addresses, ports and file paths, which the benchmark sets itself) and the memory
 * request and limit. The benchmark runs our processes with exactly these.
 *
 * @param env literal {@code env} entries (entries with {@code valueFrom} are skipped)
 * @param tuningArgs container args without {@code --port}, {@code --bind-address}, {@code --tls-*},
 *     {@code --*-bind-address}, {@code --leader-elect*}
 * @param memoryRequest e.g. {@code 96Mi}
 * @param memoryLimit e.g. {@code 160Mi}
 */
record ShippedSettings(
    Map<String, String> env, List<String> tuningArgs, String memoryRequest, String memoryLimit) {
  private static final Set<String> SET_BY_BENCH =
      Set.of(
          "--port",
          "--bind-address",
          "--tls-cert-file",
          "--tls-private-key-file",
          "--leader-elect");

  static ShippedSettings read(Path deploymentYaml) {
    Deployment d;
    try (InputStream in = Files.newInputStream(deploymentYaml)) {
      d =
          dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
              .unmarshal(in, Deployment.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
      if (e.getValue() != null) {
        env.put(e.getName(), e.getValue());
      }
    }
    List<String> args =
        (c.getArgs() == null ? List.<String>of() : c.getArgs())
            .stream()
                .filter(
                    a -> {
                      String flag = a.split("=", 2)[0];
                      return !SET_BY_BENCH.contains(flag)
                          && !flag.endsWith("-bind-address")
                          && !flag.startsWith("--leader-election");
                    })
                .toList();
    var res = c.getResources();
    return new ShippedSettings(
        env,
        args,
        res == null || res.getRequests() == null || res.getRequests().get("memory") == null
            ? "none"
            : res.getRequests().get("memory").toString(),
        res == null || res.getLimits() == null || res.getLimits().get("memory") == null
            ? "none"
            : res.getLimits().get("memory").toString());
  }

  /** One line for the report. */
  String describe() {
    StringBuilder s = new StringBuilder();
    env.forEach((k, v) -> s.append(k).append("=\"").append(v).append("\" "));
    return s.append("args ")
        .append(tuningArgs)
        .append(", memory request ")
        .append(memoryRequest)
        .append(", limit ")
        .append(memoryLimit)
        .toString();
  }
}

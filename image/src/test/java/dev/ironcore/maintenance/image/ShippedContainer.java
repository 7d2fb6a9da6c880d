package dev.ironcore.maintenance.image;

import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The container of a shipped Deployment ({@code manifests/deploy}), with the image's paths mapped
 * to the build's image Java ({@code image/target/jvm}, what {@code hack/java-runtime.sh} writes and
 * the image holds at {@code /opt/java} and {@code /app/jvm}).
 *
 * @param container the Deployment's first container, as written
 * @param jvm the build's {@code image/target/jvm}, absolute
 */
record ShippedContainer(Container container, Path jvm) {

  /**
   * @param file e.g. {@code controller_deployment.yaml}
   * @param jvm the build's {@code image/target/jvm}
   * @throws IOException when the manifest cannot be read
   */
  static ShippedContainer of(String file, Path jvm) throws IOException {
    return new ShippedContainer(
        deployment(file).getSpec().getTemplate().getSpec().getContainers().get(0),
        jvm.toAbsolutePath());
  }

  /**
   * @param file e.g. {@code webhook_deployment.yaml}
   * @return that Deployment of {@code manifests/deploy}, as written
   * @throws IOException when the manifest cannot be read
   */
  static Deployment deployment(String file) throws IOException {
    try (InputStream in = Files.newInputStream(ManifestPaths.overlay("deploy").resolve(file))) {
      return JsonMappers.kubernetesSerialization().unmarshal(in, Deployment.class);
    }
  }

  /** The container's command with {@code /opt/java} and {@code /app/jvm/classpath} mapped here. */
  List<String> command() {
    List<String> cmd = new ArrayList<>();
    for (String arg : container.getCommand()) {
      cmd.add(
          arg.replace("/opt/java/", jvm.resolve("runtime") + "/")
              .replace("@/app/jvm/classpath", "@" + jvm.resolve("local.classpath")));
    }
    return cmd;
  }

  /**
   * The command and the container's args as a test or the training starts them here: each arg whose
   * flag ({@code --name} before any {@code =}) is a key of {@code replaced} written as {@code
   * --name=<value>}, each in {@code dropped} left out, the others as written.
   *
   * @param replaced flag to its local value, e.g. {@code --health-probe-bind-address} to {@code
   *     127.0.0.1:<port>}
   * @param dropped flags not to pass here, e.g. {@code --leader-elect} without an API server
   */
  List<String> commandWith(Map<String, String> replaced, Set<String> dropped) {
    List<String> cmd = command();
    for (String arg : args()) {
      String flag = arg.split("=", 2)[0];
      if (replaced.containsKey(flag)) {
        cmd.add(flag + "=" + replaced.get(flag));
      } else if (!dropped.contains(flag)) {
        cmd.add(arg);
      }
    }
    return cmd;
  }

  /** The container's args, as written. */
  List<String> args() {
    return container.getArgs();
  }

  /** The value of the container's {@code JAVA_TOOL_OPTIONS}, {@code /app/jvm/} mapped here. */
  String javaToolOptions() {
    return env("JAVA_TOOL_OPTIONS").replace("/app/jvm/", jvm.resolve("app") + "/");
  }

  /**
   * @return the literal value of the container's env entry {@code name}
   * @throws java.util.NoSuchElementException when there is none
   */
  String env(String name) {
    return container.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElseThrow();
  }
}

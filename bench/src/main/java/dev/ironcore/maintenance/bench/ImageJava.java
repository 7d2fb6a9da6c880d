package dev.ironcore.maintenance.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The image's Java as the build leaves it ({@code image/target/jvm}, written by {@code
 * hack/java-runtime.sh}): the jlink runtime the image holds at {@code /opt/java}, the classpath
 * argfile and the webhook's AOT cache it holds at {@code /app/jvm}, and the same jars. The
 * benchmark runs our processes exactly as the Deployments start them in the image, with the image's
 * paths mapped to these.
 *
 * @param dir {@code image/target/jvm}
 */
record ImageJava(Path dir) {
  ImageJava {
    dir = dir.toAbsolutePath();
  }

  /** The command of a Deployment: the runtime's java, the classpath argfile, {@code mainClass}. */
  List<String> command(String mainClass) {
    List<String> cmd = new ArrayList<>();
    cmd.add(dir.resolve("runtime").resolve("bin").resolve("java").toString());
    cmd.add("@" + dir.resolve("local.classpath"));
    cmd.add(mainClass);
    return cmd;
  }

  /** {@code env} with every {@code /app/jvm/} path (e.g. {@code -XX:AOTCache=...}) mapped here. */
  Map<String, String> env(Map<String, String> env) {
    Map<String, String> mapped = new LinkedHashMap<>();
    env.forEach((k, v) -> mapped.put(k, v.replace("/app/jvm/", dir.resolve("app") + "/")));
    return mapped;
  }
}

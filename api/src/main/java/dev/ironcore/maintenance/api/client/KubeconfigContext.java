package dev.ironcore.maintenance.api.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks, before a client is built, that a kubeconfig's current context can be used: the file sets
 * a {@code current-context}, a context of that name is in it, and so are the cluster and the user
 * (when it names one) of that context. fabric8 silently ignores a context it does not find and
 * keeps its defaults ({@code https://kubernetes.default.svc/}, no credentials; so a typo talks to
 * whatever that name reaches, or to nothing), and a missing cluster or user entry likewise; kubectl
 * refuses such a file ({@code context was not found for specified context: foo}).
 *
 * <p>Several files (a {@code KUBECONFIG} list) are merged as kubectl merges them: the first file
 * that sets a {@code current-context} chooses it, and the first file defining a name defines it. A
 * file that cannot be read is not judged here: loading it reports that. A file that is not YAML, or
 * whose YAML is not shaped as a kubeconfig (a mapping; {@code clusters}, {@code contexts} and
 * {@code users} lists of mappings), is refused here, naming the file, what is wrong and where, but
 * never its content: fabric8's parser would quote up to 256 characters of it, which for a file
 * named by mistake (a private key, a ServiceAccount token) put a credential into the log.
 */
public final class KubeconfigContext {
  private KubeconfigContext() {}

  /**
   * Checks the files fabric8's auto-configuration reads: those {@code KUBECONFIG} names, else
   * {@code ~/.kube/config}; files that do not exist or are empty are skipped (fabric8 skips them
   * too, and {@code KUBECONFIG} naming a missing file is refused before this), but {@code
   * KUBECONFIG} naming only empty files is refused.
   *
   * @param env the process environment ({@code System.getenv()})
   * @throws IllegalArgumentException one line, {@code KUBECONFIG=<its value>: <what is wrong>} (or
   *     {@code kubeconfig <path of ~/.kube/config>: ...}), when the current context cannot be used;
   *     nothing when no file is read (fabric8 uses the in-cluster service account then)
   */
  public static void checkEnv(Map<String, String> env) {
    String value = env.get("KUBECONFIG");
    List<Path> files = new ArrayList<>();
    String source;
    if (value != null && !value.isEmpty()) {
      for (String path : value.split(File.pathSeparator)) {
        if (!path.isEmpty()) {
          files.add(Path.of(path));
        }
      }
      source = "KUBECONFIG=" + value;
    } else {
      Path config = home(env).resolve(".kube").resolve("config");
      files.add(config);
      // an empty ~/.kube/config is not refused here: in a pod fabric8 goes on in-cluster, and
      // outside one noCluster says what is missing
      check("kubeconfig " + config, files, false);
      return;
    }
    check(source, files, true);
  }

  /**
   * Why fabric8's auto-configuration would find no cluster at all: {@code KUBECONFIG} unset or
   * empty, no {@code ~/.kube/config} (or an empty one), not in a pod ({@code
   * KUBERNETES_SERVICE_HOST} or {@code KUBERNETES_SERVICE_PORT} unset, as client-go's {@code
   * rest.InClusterConfig} decides) and no {@code KUBERNETES_MASTER}. fabric8 would then talk to
   * {@code https://kubernetes.default.svc/}, which outside a cluster fails only after its connect
   * timeout and retries, with a message that does not say why.
   *
   * @param env the process environment ({@code System.getenv()})
   * @return one line saying what was looked for; empty when any of them is there
   */
  public static Optional<String> noCluster(Map<String, String> env) {
    String kubeconfig = env.get("KUBECONFIG");
    if (kubeconfig != null && !kubeconfig.isEmpty()) {
      return Optional.empty();
    }
    Path config = home(env).resolve(".kube").resolve("config");
    String state = defaultConfigState(config);
    if (state == null) {
      return Optional.empty();
    }
    if (present(env, "KUBERNETES_SERVICE_HOST") && present(env, "KUBERNETES_SERVICE_PORT")
        || present(env, "KUBERNETES_MASTER")) {
      return Optional.empty();
    }
    return Optional.of(
        "no cluster to talk to: KUBECONFIG is "
            + (kubeconfig == null ? "unset" : "empty")
            + ", "
            + config
            + state
            + " and this is not a pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both"
            + " set); set KUBECONFIG");
  }

  /**
   * @return null when {@code config} is a file with something in it (fabric8 reads it; what is
   *     wrong with it is for the loading to say), else why it does not count, e.g. {@code " is
   *     empty"}: a directory, or a file of only whitespace (on which fabric8 failed with a
   *     NullPointerException)
   */
  private static String defaultConfigState(Path config) {
    if (!Files.exists(config)) {
      return " does not exist";
    }
    if (!Files.isRegularFile(config)) {
      return " is not a file";
    }
    try {
      return Files.readString(config).isBlank() ? " is empty" : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static boolean present(Map<String, String> env, String name) {
    String value = env.get(name);
    return value != null && !value.isEmpty();
  }

  /**
   * Checks one kubeconfig file (a flag's).
   *
   * @param file the kubeconfig
   * @throws IllegalArgumentException one line, {@code kubeconfig <file>: <what is wrong>}, when its
   *     current context cannot be used
   */
  public static void check(Path file) {
    check("kubeconfig " + file, List.of(file), true);
  }

  /**
   * @param named the files were named ({@code KUBECONFIG}, a flag): then files that are all empty
   *     are refused (fresh eyes: fabric8 took an empty {@code KUBECONFIG} file for no configuration
   *     and talked to {@code https://kubernetes.default.svc/}, failing 20 s later without saying
   *     why; kubectl refuses it, {@code no configuration has been provided})
   */
  private static void check(String source, List<Path> files, boolean named) {
    List<JsonNode> configs = new ArrayList<>();
    int blank = 0;
    for (Path file : files) {
      String text;
      try {
        if (!Files.isRegularFile(file)) {
          continue;
        }
        text = Files.readString(file);
      } catch (java.nio.charset.CharacterCodingException e) {
        throw new IllegalArgumentException(
            source
                + ": "
                + (files.size() == 1 ? "the file " : file + " ")
                + "is not UTF-8 text (a kubeconfig is YAML)");
      } catch (IOException | RuntimeException e) {
        return; // reported by whatever loads it
      }
      if (text.isBlank()) {
        blank++;
        continue;
      }
      String where = files.size() == 1 ? "the file " : file + " ";
      JsonNode config;
      try {
        config = YAML.readTree(text);
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            source + ": " + where + "is not YAML (" + yamlProblem(e) + ")");
      }
      String shape = KubeconfigShape.problem(config);
      if (shape != null) {
        throw new IllegalArgumentException(
            source
                + ": "
                + where
                + "is not a kubeconfig: "
                + shape
                + " (its content is not shown: it may be a credential)");
      }
      configs.add(config);
    }
    if (configs.isEmpty()) {
      if (named && blank > 0) {
        throw new IllegalArgumentException(
            source
                + ": "
                + (blank == 1 ? "the file is empty" : "these files are empty")
                + " (no cluster, no context; kubectl refuses it too)");
      }
      return;
    }
    String problem = problem(configs, files.size() == 1 ? "the file" : "these files");
    if (problem != null) {
      throw new IllegalArgumentException(source + ": " + problem);
    }
  }

  /**
   * The parser's problem and where it is, without the line it quotes (a kubeconfig line can hold a
   * token), e.g. {@code line 3, column 9}.
   */
  private static String yamlProblem(Throwable e) {
    // the parser's own words can hold the file's content (an undefined alias or tag, a duplicate
    // key, an escape: "found undefined alias SECRET"; fresh eyes, session 40): the place alone
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.yaml.snakeyaml.error.MarkedYAMLException marked
          && marked.getProblemMark() != null) {
        var mark = marked.getProblemMark();
        return "line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
      }
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof com.fasterxml.jackson.core.JsonProcessingException j
          && j.getLocation() != null
          && j.getLocation().getLineNr() > 0) {
        return "line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr();
      }
    }
    return "at an unknown place";
  }

  /**
   * fabric8's configuration as its auto-configuration finds it ({@code Config.autoConfigure(null)}:
   * the files {@code KUBECONFIG} names, merged, else {@code ~/.kube/config}, else the pod's service
   * account), with a file fabric8's parser refuses named by place only ({@link #loadFailure}). Call
   * {@link #checkEnv} first: it refuses most such files with a more precise reason.
   *
   * @param env the process environment ({@code System.getenv()}), for naming the files: fabric8
   *     reads the real environment
   * @return the configuration, as {@code new KubernetesClientBuilder().build()} would make it
   * @throws Unloadable one line, {@code <source>: <why>} ({@link #source}), when fabric8 cannot
   *     load its configuration (a file its parser refuses: the place only)
   */
  public static Config autoConfigure(Map<String, String> env) {
    try {
      return Config.autoConfigure(null);
    } catch (RuntimeException e) {
      throw unloadable(source(env), e);
    }
  }

  /**
   * Where fabric8's auto-configuration takes its configuration from, for a message: {@code
   * KUBECONFIG=<its value>}, else {@code kubeconfig <path of ~/.kube/config>} when that is a file,
   * else {@code the in-cluster configuration} (the pod's service account).
   *
   * @param env the process environment ({@code System.getenv()})
   */
  public static String source(Map<String, String> env) {
    String value = env.get("KUBECONFIG");
    if (value != null && !value.isEmpty()) {
      return "KUBECONFIG=" + value;
    }
    Path config = home(env).resolve(".kube").resolve("config");
    return Files.isRegularFile(config) ? "kubeconfig " + config : "the in-cluster configuration";
  }

  /**
   * fabric8's configuration of one kubeconfig file ({@code Config.fromKubeconfig}), its current
   * context; relative paths in it ({@code certificate-authority}, {@code client-key}, ...) resolved
   * against the file's directory, as kubectl does. Call {@link #check(Path)} first.
   *
   * @throws Unloadable one line, {@code kubeconfig <file>: <why>}, when fabric8 cannot load it (its
   *     parser refuses it: the place only; it cannot be read)
   */
  public static Config load(Path file) {
    try {
      return Config.fromKubeconfig(file.toAbsolutePath().toFile());
    } catch (RuntimeException e) {
      throw unloadable("kubeconfig " + file, e);
    }
  }

  /**
   * {@code e}, what fabric8 threw loading {@code source}, as one line: the parser's failure by
   * place only and without the exception (its message quotes the file, a token or a key); any other
   * (an unreadable file) by {@link #reason}.
   */
  private static Unloadable unloadable(String source, RuntimeException e) {
    String why = loadFailure(e);
    if (why != null) {
      return new Unloadable(source + ": " + why, null);
    }
    return new Unloadable(source + ": " + reason(e), e);
  }

  /**
   * Builds a client of a configuration this class loaded. fabric8 reads the kubeconfig's
   * certificate and key files ({@code certificate-authority}, {@code client-certificate}, {@code
   * client-key}) only when it builds the client, and says "An error has occurred." with the path as
   * its cause; this names the source and the file.
   *
   * @param source where the configuration came from ({@link #source}, or a flag's name and file)
   * @param build builds the client (e.g. {@code () -> JsonMappers.client(config)})
   * @return what {@code build} returned
   * @throws Unloadable one line, e.g. {@code KUBECONFIG=/x: cannot build a client of it: no such
   *     file /x/pki/ca.crt}, when {@code build} throws
   */
  public static <T> T build(String source, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (RuntimeException e) {
      throw new Unloadable(source + ": cannot build a client of it: " + reason(e), e);
    }
  }

  /**
   * The first useful message of {@code e}'s causes, in one line: a missing file as {@code no such
   * file <path>}, else the first message that is not fabric8's generic "An error has occurred.",
   * else the exception's class name.
   */
  private static String reason(Throwable e) {
    String why = null;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.nio.file.NoSuchFileException missing) {
        return "no such file " + missing.getFile();
      }
      String m = t.getMessage();
      if (why == null && m != null && !m.isBlank() && !m.startsWith("An error has occurred")) {
        why = m.strip().replaceAll("\\s*\\R\\s*", " ");
      }
    }
    return why != null ? why : e.getClass().getSimpleName();
  }

  /**
   * A kubeconfig fabric8 could not load, or build a client of ({@link #build}), in one line naming
   * the file: a parser failure by place only, with no cause attached (the parser's message quotes
   * the file).
   */
  public static final class Unloadable extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Unloadable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * What stopped fabric8 loading a kubeconfig, without quoting the file: the place (the parser's
   * path and location) and the kind of problem, never the value or the parser's message.
   *
   * @param e what loading threw
   * @return e.g. {@code cannot be read as a kubeconfig at users[0].user.exec (line 9, column 11): a
   *     value of the wrong type (...)}; null when nothing in {@code e}'s causes is the parser's
   */
  static String loadFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.nio.charset.CharacterCodingException) {
        return "the file is not UTF-8 text (a kubeconfig is YAML)";
      }
      if (t instanceof com.fasterxml.jackson.databind.JsonMappingException m) {
        StringBuilder path = new StringBuilder();
        for (var ref : m.getPath()) {
          if (ref.getFieldName() != null) {
            path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
          } else if (ref.getIndex() >= 0) {
            path.append('[').append(ref.getIndex()).append(']');
          }
        }
        var location = m.getLocation();
        return "cannot be read as a kubeconfig"
            + (path.length() == 0 ? "" : " at " + path)
            + (location == null || location.getLineNr() < 1
                ? ""
                : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")")
            + ": a value of the wrong type (its content is not shown: it may be a credential)";
      }
      if (t instanceof com.fasterxml.jackson.core.JsonProcessingException
          || t instanceof org.yaml.snakeyaml.error.YAMLException) {
        return "the file is not YAML as fabric8 reads it (" + yamlProblem(t) + ")";
      }
    }
    return null;
  }

  /**
   * A plain YAML tree reader: a kubeconfig is read before any client exists, and fabric8's
   * serialization (which the client builds anyway) took a few hundred ms more of a cold start.
   */
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              // fabric8's parser (SnakeYAML) refuses a key given twice; so does this check
              .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
              .build());

  /** What keeps the merged {@code configs}' current context from being used, or null. */
  private static String problem(List<JsonNode> configs, String where) {
    String current =
        configs.stream()
            .map(c -> text(c, "current-context"))
            .filter(c -> !c.isEmpty())
            .findFirst()
            .orElse(null);
    if (current == null) {
      return "no current-context is set";
    }
    JsonNode context = entries(configs, "contexts", "context").get(current);
    if (context == null) {
      return "current-context \"" + current + "\" is not a context of " + where;
    }
    String cluster = text(context, "cluster");
    if (cluster.isEmpty()) {
      return "context \"" + current + "\" names no cluster";
    }
    if (!entries(configs, "clusters", "cluster").containsKey(cluster)) {
      return "context \""
          + current
          + "\" names cluster \""
          + cluster
          + "\", which is not in "
          + where;
    }
    String user = text(context, "user");
    if (!user.isEmpty() && !entries(configs, "users", "user").containsKey(user)) {
      return "context \"" + current + "\" names user \"" + user + "\", which is not in " + where;
    }
    return null;
  }

  /**
   * The named entries of list {@code field} ({@code contexts}, {@code clusters}, {@code users}) of
   * every config by name, each its {@code body}; the first config defining a name wins, and an
   * entry without a body does not count (fabric8 skips it too).
   */
  private static Map<String, JsonNode> entries(List<JsonNode> configs, String field, String body) {
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode config : configs) {
      for (JsonNode entry : config.path(field)) {
        String name = text(entry, "name");
        JsonNode value = entry.get(body);
        if (!name.isEmpty() && value != null && !value.isNull()) {
          out.putIfAbsent(name, value);
        }
      }
    }
    return out;
  }

  /** The text of {@code node.field}, or "" when absent. */
  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? "" : value.asText();
  }

  /** fabric8's home directory: {@code HOME} when it is a directory, else {@code user.home}. */
  private static Path home(Map<String, String> env) {
    String home = env.get("HOME");
    if (home != null && !home.isEmpty() && new File(home).isDirectory()) {
      return Path.of(home);
    }
    return Path.of(System.getProperty("user.home", "."));
  }
}

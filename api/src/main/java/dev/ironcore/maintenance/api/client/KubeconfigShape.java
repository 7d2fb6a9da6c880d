package dev.ironcore.maintenance.api.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * The shape of a parsed kubeconfig, checked before fabric8 reads it (for {@link
 * KubeconfigContext}): where fabric8's parser meets a string in place of a mapping, a list or a
 * boolean, its message quotes that string, which may be a credential; this check names the place
 * and the kind of value only.
 */
final class KubeconfigShape {
  private KubeconfigShape() {}

  /**
   * What keeps a parsed file from being read as a kubeconfig, or null: the document is not a
   * mapping, or {@code clusters}, {@code contexts} or {@code users} is not a list of mappings whose
   * {@code cluster}, {@code context} or {@code user} is a mapping. Names the place and the kind of
   * value found, never the value.
   */
  static String problem(JsonNode config) {
    if (config == null || !config.isObject()) {
      return "it holds " + kind(config) + ", not a mapping of clusters, contexts and users";
    }
    return problem(config, KUBECONFIG, "");
  }

  /*
   * The members of a kubeconfig (client-go's clientcmd/api/v1, as fabric8's model reads them)
   * whose value is not a string: a mapping, a list or a boolean. Where fabric8's parser meets a
   * string there, its message quotes the string (a token pasted as "exec: eyJ..."), so they are
   * checked here first. A shape is a Map of member to shape, MAPPING (any mapping), LIST (a list of
   * anything), List.of(shape) (a list of that shape) or BOOLEAN (a boolean: the text "true", which
   * fabric8 reads too, is refused, as client-go refuses it).
   */
  private static final Object MAPPING = new Object();
  private static final Object LIST = new Object();
  private static final Object BOOLEAN = new Object();
  private static final Map<String, Object> KUBECONFIG =
      Map.of(
          "clusters",
          List.of(
              Map.of(
                  "cluster",
                  Map.of(
                      "insecure-skip-tls-verify", BOOLEAN,
                      "disable-compression", BOOLEAN,
                      "extensions", List.of(MAPPING)))),
          "contexts",
          List.of(Map.of("context", Map.of("extensions", List.of(MAPPING)))),
          "users",
          List.of(
              Map.of(
                  "user",
                  Map.of(
                      "as-groups", LIST,
                      "as-user-extra", MAPPING,
                      "auth-provider", Map.of("config", MAPPING),
                      "exec",
                          Map.of(
                              "args", LIST,
                              "env", List.of(MAPPING),
                              "provideClusterInfo", BOOLEAN),
                      "extensions", List.of(MAPPING)))),
          "preferences",
          Map.of("colors", BOOLEAN, "extensions", List.of(MAPPING)),
          "extensions",
          List.of(MAPPING));

  /** What in {@code node} does not have {@code shape}, named by its path {@code at}. */
  @SuppressWarnings("unchecked")
  private static String problem(JsonNode node, Object shape, String at) {
    if (node == null || node.isNull()) {
      return null;
    }
    String where = at.isEmpty() ? "the file" : at;
    if (shape == BOOLEAN) {
      if (node.isTextual()
          && ("true".equalsIgnoreCase(node.asText()) || "false".equalsIgnoreCase(node.asText()))) {
        // fabric8 would read it; kubectl (client-go) refuses the file, so a quoted "true" must not
        // skip TLS verification here alone (fresh eyes, session 41)
        return where
            + " is the text \""
            + node.asText()
            + "\", not a boolean: write it unquoted (kubectl refuses the quoted form too)";
      }
      return node.isBoolean() ? null : where + " is " + kind(node) + ", not true or false";
    }
    if (shape == LIST || shape instanceof List) {
      if (!node.isArray()) {
        return where + " is " + kind(node) + ", not a list";
      }
      if (shape instanceof List<?> items) {
        for (int i = 0; i < node.size(); i++) {
          String problem = problem(node.get(i), items.get(0), at + "[" + i + "]");
          if (problem != null) {
            return problem;
          }
        }
      }
      return null;
    }
    if (!node.isObject()) {
      return where + " is " + kind(node) + ", not a mapping";
    }
    if (shape instanceof Map<?, ?> members) {
      for (var member : ((Map<String, Object>) members).entrySet()) {
        String problem =
            problem(
                node.get(member.getKey()),
                member.getValue(),
                at.isEmpty() ? member.getKey() : at + "." + member.getKey());
        if (problem != null) {
          return problem;
        }
      }
    }
    return null;
  }

  /** The kind of a YAML value, for a message: "a text", "a list", "a number", ... */
  static String kind(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return "nothing";
    }
    if (node.isTextual()) {
      return "a text";
    }
    if (node.isArray()) {
      return "a list";
    }
    if (node.isObject()) {
      return "a mapping";
    }
    if (node.isBoolean()) {
      return "a boolean";
    }
    return node.isNumber()
        ? "a number"
        : "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
  }
}

package dev.ironcore.maintenance.devtools;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Minimal {@code --name value} / {@code --name=value} parsing for the command-line mains. */
final class Flags {

  private final Map<String, String> values = new HashMap<>();

  private Flags() {}

  /**
   * True when the arguments ask for help ({@code --help} or {@code -h} anywhere): the main then
   * prints its usage on stdout and exits 0 instead of parsing.
   */
  static boolean wantsHelp(String[] args) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param allowed flag names without dashes
   * @throws IllegalArgumentException on an unknown flag or a flag without value
   */
  static Flags parse(String[] args, Set<String> allowed) {
    Flags f = new Flags();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + a);
      }
      String name = a.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("missing value for --" + name);
      }
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + "; known: " + allowed);
      }
      f.values.put(name, value);
    }
    return f;
  }

  /**
   * @throws IllegalArgumentException if the flag was not given
   */
  String required(String name) {
    String v = values.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  String optional(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }
}

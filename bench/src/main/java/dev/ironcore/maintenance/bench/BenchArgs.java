package dev.ironcore.maintenance.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code --key value} command lines of the benchmark mains. */
final class BenchArgs {
  private BenchArgs() {}

  static Map<String, String> parse(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --key value, got " + Arrays.toString(args));
      }
      m.put(args[i].substring(2), args[++i]);
    }
    return m;
  }

  /** Splits on whitespace; empty for a blank string. */
  static List<String> words(String s) {
    return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
  }
}

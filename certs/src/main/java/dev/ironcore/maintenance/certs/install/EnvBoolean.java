package dev.ironcore.maintenance.certs.install;

import java.util.Locale;

/**
 * A true/false environment variable of {@code make certs} (such as {@code DRY_RUN}): unset, empty
 * or {@code false} is false, {@code true} is true (either in any letter case), anything else
 * ({@code yes}, {@code 1}) is a mistake the user must hear about rather than a silent "no".
 */
final class EnvBoolean {
  private EnvBoolean() {}

  /**
   * @param name the variable's name, for the error
   * @param value its value, null when unset
   * @return false for null, empty or {@code false}; true for {@code true}
   * @throws IllegalArgumentException for any other value, one line naming the variable, the value
   *     and the allowed values: {@code DRY_RUN='yes': use true or false (or leave DRY_RUN empty)}
   */
  static boolean parse(String name, String value) {
    if (value == null || value.isEmpty()) {
      return false;
    }
    switch (value.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException(
            name + "='" + value + "': use true or false (or leave " + name + " empty)");
    }
  }
}

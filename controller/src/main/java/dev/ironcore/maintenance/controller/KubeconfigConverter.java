package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.client.KubeconfigContext;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import picocli.CommandLine;

/**
 * Picocli converter of a kubeconfig file path (e.g. {@code --ironcore-kubeconfig}) into a fabric8
 * client config, using the file's current context. A missing, unreadable or unparsable file is a
 * flag error naming the path, and so is a current context that cannot be used ({@link
 * KubeconfigContext}: none set, or naming a context, cluster or user the file does not have).
 */
public final class KubeconfigConverter implements CommandLine.ITypeConverter<Config> {
  @Override
  public Config convert(String value) {
    File file = new File(value);
    if (!file.isFile() || !file.canRead()) {
      throw new CommandLine.TypeConversionException("no readable kubeconfig file at " + value);
    }
    try {
      KubeconfigContext.check(file.toPath());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
    try {
      return Config.fromKubeconfig(file);
    } catch (RuntimeException e) {
      // fabric8 wraps the parser's reason as "An error has occurred." (fresh eyes): the cause says
      String why = KubeconfigContext.loadFailure(e);
      throw new CommandLine.TypeConversionException(
          "cannot use kubeconfig " + value + ": " + (why != null ? why : reason(e)));
    }
  }

  /**
   * The first message in {@code e}'s cause chain that is not fabric8's generic one, on one line.
   */
  static String reason(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && !m.isBlank() && !m.startsWith("An error has occurred")) {
        return m.strip().replaceAll("\\s*\\R\\s*", " ");
      }
    }
    return e.getClass().getSimpleName();
  }
}

package dev.ironcore.maintenance.controller;

import io.fabric8.kubernetes.client.Config;
import java.io.File;
import picocli.CommandLine;

/**
 * Picocli converter of a kubeconfig file path (e.g. {@code --ironcore-kubeconfig}) into a fabric8
 * client config, using the file's current context. A missing, unreadable or unparsable file is a
 * flag error naming the path.
 */
public final class KubeconfigConverter implements CommandLine.ITypeConverter<Config> {
  @Override
  public Config convert(String value) {
    File file = new File(value);
    if (!file.isFile() || !file.canRead()) {
      throw new CommandLine.TypeConversionException("no readable kubeconfig file at " + value);
    }
    try {
      return Config.fromKubeconfig(file);
    } catch (RuntimeException e) {
      throw new CommandLine.TypeConversionException(
          "cannot use kubeconfig " + value + ": " + e.getMessage());
    }
  }
}

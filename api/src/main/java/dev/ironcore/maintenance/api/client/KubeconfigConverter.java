package dev.ironcore.maintenance.api.client;

import io.fabric8.kubernetes.client.Config;
import java.io.File;
import picocli.CommandLine;

/**
 * Picocli converter of a kubeconfig file path (e.g. {@code --kubeconfig}, {@code
 * --ironcore-kubeconfig}) into a fabric8 client config, using the file's current context. A
 * missing, unreadable or unparsable file is a flag error naming the path, and so is a current
 * context that cannot be used ({@link KubeconfigContext}: none set, or naming a context, cluster or
 * user the file does not have).
 */
public final class KubeconfigConverter implements CommandLine.ITypeConverter<Config> {
  @Override
  public Config convert(String value) {
    if (value.isEmpty()) {
      throw new CommandLine.TypeConversionException("must name a kubeconfig file, not be empty");
    }
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
      return KubeconfigContext.load(file.toPath());
    } catch (KubeconfigContext.Unloadable e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}

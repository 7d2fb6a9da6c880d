package dev.ironcore.maintenance.controller.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Queue keys: {@code namespace/name} for namespaced objects, {@code name} for cluster-scoped ones.
 */
public final class Keys {
  private Keys() {}

  public static String of(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return ns == null || ns.isEmpty()
        ? o.getMetadata().getName()
        : ns + "/" + o.getMetadata().getName();
  }

  /** The namespace of a key, or null for a cluster-scoped key. */
  public static String namespace(String key) {
    int i = key.indexOf('/');
    return i < 0 ? null : key.substring(0, i);
  }

  /** The name part of a key. */
  public static String name(String key) {
    return key.substring(key.indexOf('/') + 1);
  }
}

package dev.ironcore.maintenance.process;

import org.slf4j.MDC;

/**
 * The object a thread is acting on, put into the logging MDC as {@code kind}, {@code namespace}
 * (absent for cluster-scoped objects) and {@code name}, so every line logged inside carries them
 * (top-level fields of {@link LogFormat#JSON}). Use with try-with-resources; closing restores the
 * previous values.
 */
public final class ObjectLogContext implements AutoCloseable {
  /** MDC keys. */
  public static final String KIND = "kind", NAMESPACE = "namespace", NAME = "name";

  private final String previousKind;
  private final String previousNamespace;
  private final String previousName;

  private ObjectLogContext() {
    previousKind = MDC.get(KIND);
    previousNamespace = MDC.get(NAMESPACE);
    previousName = MDC.get(NAME);
  }

  /**
   * @param kind e.g. {@code Machine}, {@code MachinePool}
   * @param namespace null or empty for a cluster-scoped object
   * @param name the object's name
   */
  public static ObjectLogContext of(String kind, String namespace, String name) {
    ObjectLogContext context = new ObjectLogContext();
    MDC.put(KIND, kind);
    put(NAMESPACE, namespace == null || namespace.isEmpty() ? null : namespace);
    MDC.put(NAME, name);
    return context;
  }

  @Override
  public void close() {
    put(KIND, previousKind);
    put(NAMESPACE, previousNamespace);
    put(NAME, previousName);
  }

  private static void put(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }
}

package dev.ironcore.maintenance.controller.runtime;

import dev.ironcore.maintenance.process.ObjectLogContext;

/**
 * Runs a {@link Reconciler} with the object of its key in the log context ({@link
 * ObjectLogContext}: {@code kind}, {@code namespace}, {@code name}), so every line logged during a
 * pass names the object, also as JSON fields with {@code --log-format=json}.
 */
public final class LoggedReconciler {
  private LoggedReconciler() {}

  /**
   * @param kind the kind of the loop's objects as kubectl accepts it, {@code Kind.group}, e.g.
   *     {@code MachinePool.compute.ironcore.dev}
   * @param reconciler the loop's reconciler, called unchanged
   */
  public static Reconciler of(String kind, Reconciler reconciler) {
    return key -> {
      try (ObjectLogContext ignored =
          ObjectLogContext.of(kind, Keys.namespace(key), Keys.name(key))) {
        return reconciler.reconcile(key);
      }
    };
  }
}

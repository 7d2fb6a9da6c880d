package dev.ironcore.maintenance.controller.runtime;

/**
 * One control loop's pass over one object, named by its key ({@code namespace/name}, or {@code
 * name} for cluster-scoped objects). Must be idempotent: it may run again at any time.
 */
@FunctionalInterface
public interface Reconciler {
  /**
   * @return what the queue should do next
   * @throws Exception on failure; the key is retried with exponential back-off
   */
  Result reconcile(String key) throws Exception;
}

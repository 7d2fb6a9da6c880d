package dev.ironcore.maintenance.controller.runtime;

/**
 * A guarded write the API server refused because the object changed since it was read (409
 * Conflict, or 422 from a JSON Patch whose {@code test} of the resourceVersion failed): expected
 * whenever a cache lags or another client writes meanwhile. The {@link Loop} logs it at INFO
 * without a stack trace however often it happens in a row, and decides again from a fresh read.
 */
public final class ObjectChanged extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * @param code the API server's HTTP code (409 or 422)
   * @param cause the client's exception
   */
  public ObjectChanged(int code, Throwable cause) {
    super(
        "the object changed since it was read (the API server refused the guarded patch, "
            + code
            + "): deciding again",
        cause);
  }

  /**
   * Whether the API server's refusal of a guarded write means the object changed since it was read:
   * 409 Conflict, or 422 from a JSON Patch {@code test} that failed (kube-apiserver reports that
   * with a cause of type {@code UnexpectedServerResponse}, "testing value ... failed"). A 422 whose
   * causes name fields is the object being invalid (schema or an admission webhook's denial, e.g. a
   * stored taint whose {@code timeAdded} is no date-time): deciding again cannot mend that, so it
   * is a failure, not a stale read.
   *
   * @param e the client's exception
   * @param guarded whether the patch carried a {@code test} operation
   */
  public static boolean isStale(
      io.fabric8.kubernetes.client.KubernetesClientException e, boolean guarded) {
    if (e.getCode() == 409) {
      return true;
    }
    if (e.getCode() != 422 || !guarded) {
      return false;
    }
    var status = e.getStatus();
    if (status == null || status.getDetails() == null || status.getDetails().getCauses() == null) {
      return true;
    }
    return status.getDetails().getCauses().stream()
        .noneMatch(c -> c.getField() != null && !c.getField().isEmpty());
  }
}

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
   * 409 Conflict, or 422 from a JSON Patch {@code test} that failed, which kube-apiserver answers
   * with its generic Status ("the server rejected our request due to an error in our request",
   * empty {@code details}: no object named, no causes). A 422 that names the object or gives
   * causes, or whose message is an admission webhook's denial ({@code admission webhook "..."
   * denied the request}, which a webhook may send with no details), is a refusal of the object
   * itself (schema validation, an admission webhook, a ValidatingAdmissionPolicy): deciding again
   * cannot mend that, so it is a failure, not a stale read.
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
    if (status != null
        && status.getMessage() != null
        && status.getMessage().contains("admission webhook \"")) {
      return false; // a webhook's denial, which it may send with code 422 and no details
    }
    var details = status == null ? null : status.getDetails();
    return details == null
        || ((details.getName() == null || details.getName().isEmpty())
            && (details.getCauses() == null || details.getCauses().isEmpty()));
  }
}

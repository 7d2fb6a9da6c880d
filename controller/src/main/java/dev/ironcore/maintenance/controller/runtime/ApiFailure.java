package dev.ironcore.maintenance.controller.runtime;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a failed pass says in the log: for an API request, the request, the HTTP code and the API
 * server's own message (e.g. {@code PATCH .../machinepools/pool-a answered 500: Internal error
 * occurred: failed calling webhook "machinepool.maintenance.ironcore.dev": ... context deadline
 * exceeded}), or, when no answer came, why (e.g. {@code java.net.http.HttpTimeoutException: request
 * timed out}); fabric8's own text buries these in a long line or leaves them out.
 */
public final class ApiFailure {
  private ApiFailure() {}

  /**
   * @param t what a pass threw
   * @return one line for the log: the API request's outcome as above, else {@code t.toString()}
   */
  public static String describe(Throwable t) {
    KubernetesClientException k = apiException(t);
    if (k == null) {
      return t.toString();
    }
    String request = request(k.getMessage());
    if (k.getCode() > 0) {
      String message =
          k.getStatus() != null && k.getStatus().getMessage() != null
              ? k.getStatus().getMessage()
              : k.getMessage();
      return (request == null ? "the API server" : request)
          + " answered "
          + k.getCode()
          + ": "
          + message
          + (t == k ? "" : " (" + t.getMessage() + ")");
    }
    Throwable root = k;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return (request == null ? k.getMessage() : request + " got no answer")
        + (root == k ? "" : ": " + root);
  }

  /**
   * @return true when the API server answered 5xx or did not answer at all: a failure of the
   *     cluster (an API server or admission webhook down or hung), not a stale read or a refusal,
   *     worth a WARN at its first occurrence
   */
  public static boolean isServerSide(Throwable t) {
    KubernetesClientException k = apiException(t);
    return k != null && (k.getCode() >= 500 || k.getCode() <= 0);
  }

  /**
   * How long the API server asked to wait before the next attempt: for a 429 Too Many Requests (API
   * Priority and Fairness, max-in-flight), its {@code Status} {@code details.retryAfterSeconds}
   * when the body carries one, else 1 s (kube-apiserver's {@code Retry-After}, which fabric8 does
   * not hand on); null for any other failure.
   */
  public static java.time.Duration retryAfter(Throwable t) {
    KubernetesClientException k = apiException(t);
    if (k == null || k.getCode() != 429) {
      return null;
    }
    Integer seconds =
        k.getStatus() == null || k.getStatus().getDetails() == null
            ? null
            : k.getStatus().getDetails().getRetryAfterSeconds();
    return java.time.Duration.ofSeconds(seconds == null || seconds < 1 ? 1 : seconds);
  }

  private static KubernetesClientException apiException(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof KubernetesClientException k) {
        return k;
      }
    }
    return null;
  }

  /** {@code PATCH https://...} from fabric8's {@code Failure executing: PATCH at: URL. ...}. */
  private static String request(String message) {
    if (message == null) {
      return null;
    }
    String prefix = "Failure executing: ";
    int start = message.indexOf(prefix);
    if (start < 0) {
      int op = message.indexOf("Operation: [");
      if (op < 0) {
        return null;
      }
      String operation = message.substring(op).replaceAll("\\s+", " ");
      int failed = operation.indexOf(" failed");
      return (failed < 0 ? operation : operation.substring(0, failed)).strip();
    }
    String rest = message.substring(start + prefix.length());
    int end = rest.indexOf(". Message:");
    return (end < 0 ? rest : rest.substring(0, end)).replace(" at: ", " ");
  }
}

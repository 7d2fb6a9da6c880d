package dev.ironcore.maintenance.controller.runtime;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a failed pass says in the log: for an API request, the request, the HTTP code and the API
 * server's own message (e.g. {@code PATCH .../machinepools/pool-a answered 500: Internal error
 * occurred: failed calling webhook "machinepool.maintenance.ironcore.dev": ... context deadline
 * exceeded}), or, when no answer came, why (e.g. {@code request timed out (HttpTimeoutException)});
 * fabric8's own text buries these in a long line or leaves them out.
 */
public final class ApiFailure {
  private ApiFailure() {}

  /**
   * @param t what a pass threw
   * @return one line for the log: the API request's outcome as above, else its message and simple
   *     class name, e.g. {@code pool p cannot be decoded (IllegalStateException)}
   */
  public static String describe(Throwable t) {
    KubernetesClientException k = apiException(t);
    if (k == null) {
      return cause(t); // "... held: its Evicted event could not be written (IllegalStateException)"
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
    Throwable root = root(k);
    String what =
        request != null
            ? request + " got no answer"
            : k.getMessage() == null || k.getMessage().startsWith(FABRIC8_GENERIC)
                ? "no answer"
                : k.getMessage();
    return what + (root == k ? "" : ": " + cause(root));
  }

  /** fabric8's message for a request that failed without an answer and without naming it. */
  private static final String FABRIC8_GENERIC = "An error has occurred";

  /**
   * Why a request that got no answer failed, for the log: its innermost cause's message and simple
   * class name, e.g. {@code Connection refused (ConnectException)} (the HTTP client's failures come
   * wrapped in {@code CompletionException}s; their {@code toString()} is a Java class path).
   */
  public static String rootCause(Throwable t) {
    return cause(root(t));
  }

  private static Throwable root(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  /**
   * Why no answer came, for operators: the message, then the exception's simple name ({@code
   * request timed out (HttpTimeoutException)}), not the Java class path (fresh eyes, session 47:
   * {@code java.net.http.HttpTimeoutException: request timed out} in Events).
   */
  static String cause(Throwable root) {
    String name = root.getClass().getSimpleName();
    if (root instanceof java.nio.channels.ClosedChannelException
        || root instanceof java.io.EOFException) {
      // no message of their own (fresh eyes: "last: failed: ClosedChannelException")
      return "connection closed (" + name + ")";
    }
    return root.getMessage() == null || root.getMessage().isBlank()
        ? name
        : root.getMessage() + " (" + name + ")";
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
   * @return true when the request got no answer at all (timed out, connection refused or cut), as
   *     opposed to any HTTP status
   */
  public static boolean unanswered(Throwable t) {
    KubernetesClientException k = apiException(t);
    return k != null && k.getCode() <= 0;
  }

  /**
   * @return true when the API server refused the request itself: a 4xx other than 404 Not Found,
   *     409 Conflict and 429 Too Many Requests, and not a stale guarded write ({@link
   *     ObjectChanged}), e.g. 403 (RBAC, a namespace being deleted) or 422 from a schema, an
   *     admission webhook or a ValidatingAdmissionPolicy; deciding again does not mend it
   */
  public static boolean isRefusal(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ObjectChanged) {
        return false;
      }
    }
    KubernetesClientException k = apiException(t);
    if (k == null) {
      return false;
    }
    int code = k.getCode();
    return code >= 400 && code < 500 && code != 404 && code != 409 && code != 429;
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

  private static final java.util.regex.Pattern OPERATION =
      java.util.regex.Pattern.compile(
          "Operation: \\[(\\w+)]\\s+for kind: \\[([^\\]]*)]\\s+with name: \\[([^\\]]*)]"
              + "(?:\\s+in namespace: \\[([^\\]]*)])?");

  /** Kinds the loops write that have no namespace (fabric8 names its default one for them). */
  private static final java.util.Set<String> CLUSTER_SCOPED = java.util.Set.of("MachinePool");

  /**
   * {@code patch MachinePool pool-a} or {@code patch Machine default/vm-1} from fabric8's {@code
   * Operation: [patch] for kind: [MachinePool] with name: [pool-a] in namespace: [default]
   * failed.}, which names the client's default namespace for a cluster-scoped object too; null when
   * the message has no such operation.
   */
  private static String operation(String message) {
    java.util.regex.Matcher m = OPERATION.matcher(message);
    if (!m.find()) {
      return null;
    }
    String kind = m.group(2);
    String namespace = m.group(4);
    boolean namespaced =
        namespace != null && !namespace.isEmpty() && !CLUSTER_SCOPED.contains(kind);
    return m.group(1) + " " + kind + " " + (namespaced ? namespace + "/" : "") + m.group(3);
  }

  /** {@code PATCH https://...} from fabric8's {@code Failure executing: PATCH at: URL. ...}. */
  private static String request(String message) {
    if (message == null) {
      return null;
    }
    String prefix = "Failure executing: ";
    int start = message.indexOf(prefix);
    if (start < 0) {
      return operation(message);
    }
    String rest = message.substring(start + prefix.length());
    int end = rest.indexOf(". Message:");
    return (end < 0 ? rest : rest.substring(0, end)).replace(" at: ", " ");
  }
}

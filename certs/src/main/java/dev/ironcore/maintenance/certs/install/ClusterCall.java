package dev.ironcore.maintenance.certs.install;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/**
 * One request of {@code make certs} to a cluster, so that its failure names the request and its
 * root cause on one line: fabric8's own text ({@code Operation: [get] for kind:
 * [MutatingWebhookConfiguration] with name: [ironcore-maintenance] in namespace: [default]
 * failed.}) names neither the cause nor the server, and a namespace for cluster-scoped objects.
 */
final class ClusterCall {
  private ClusterCall() {}

  /**
   * Runs {@code call}.
   *
   * @param client the client the call uses (its server is named when no answer came)
   * @param request what is asked, e.g. {@code get Secret ns/name}
   * @param call the request
   * @return what {@code call} returns
   * @throws ClusterFailure when the client throws, naming the request and the root cause
   */
  static <T> T run(KubernetesClient client, String request, Supplier<T> call) {
    try {
      return call.get();
    } catch (KubernetesClientException e) {
      throw failure(request, String.valueOf(client.getMasterUrl()), e);
    }
  }

  /**
   * @param request what was asked, e.g. {@code update Secret ns/name}
   * @param server the API server's URL
   * @param e what the client threw
   * @return {@code <request>: answered <code>: <message>} when the API server answered, else {@code
   *     <request>: no answer from <server> (<root cause>)}
   */
  static ClusterFailure failure(String request, String server, KubernetesClientException e) {
    if (e.getCode() > 0) {
      String message =
          e.getStatus() != null && e.getStatus().getMessage() != null
              ? e.getStatus().getMessage()
              : e.getMessage();
      return new ClusterFailure(
          request
              + ": "
              + stripSlash(server)
              + " answered "
              + e.getCode()
              + ": "
              + CaFiles.oneLine(message),
          false,
          e);
    }
    return new ClusterFailure(
        request + ": no answer from " + stripSlash(server) + " (" + rootCause(server, e) + ")",
        true,
        e);
  }

  /**
   * Why no answer came: a ConnectException's message, or, as the JDK's HTTP client leaves it out,
   * what a plain TCP connect to the server says ({@code Connection refused}, {@code connect timed
   * out}); otherwise the deepest cause's message, or its class name when it has none.
   */
  private static String rootCause(String server, Throwable e) {
    Throwable deepest = e;
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof java.net.ConnectException) {
        return t.getMessage() != null && !t.getMessage().isBlank()
            ? CaFiles.oneLine(t.getMessage())
            : connectProblem(server);
      }
      if (t.getMessage() != null && !t.getMessage().isBlank() && t != e) {
        deepest = t;
      }
    }
    return deepest == e ? e.getClass().getSimpleName() : CaFiles.oneLine(deepest.getMessage());
  }

  /** What a TCP connect to {@code server} (a URL) says, in a second at most. */
  static String connectProblem(String server) {
    try {
      java.net.URI uri = java.net.URI.create(server);
      int port = uri.getPort() > 0 ? uri.getPort() : "http".equals(uri.getScheme()) ? 80 : 443;
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(new java.net.InetSocketAddress(uri.getHost(), port), 1000);
        return "cannot connect (ConnectException)";
      }
    } catch (java.io.IOException | IllegalArgumentException e) {
      return e.getMessage() == null
          ? e.getClass().getSimpleName()
          : CaFiles.oneLine(e.getMessage());
    }
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}

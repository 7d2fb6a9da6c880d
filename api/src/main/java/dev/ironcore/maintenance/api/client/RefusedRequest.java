package dev.ironcore.maintenance.api.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;

/**
 * A request the API server refused for who sent it (401 Unauthorized, 403 Forbidden), in one phrase
 * for a start failure; fabric8's own message ({@code Failure executing: GET at: <url>. Message:
 * Unauthorized. Received status: Status(apiVersion=v1, code=401, ...)}) repeats the URL and the
 * whole Status object.
 */
public final class RefusedRequest {
  private RefusedRequest() {}

  /** What a 401 says, and where the credentials come from. */
  static final String UNAUTHORIZED =
      "answered 401 Unauthorized (check the kubeconfig's credentials, or in a pod its service"
          + " account token)";

  /**
   * @param e a failed request
   * @return {@value #UNAUTHORIZED} for a 401; for a 403 {@code answered 403 Forbidden: <the API
   *     server's message>}, its leading {@code forbidden: } left out, with {@code (the request
   *     carried no credentials)} added when the API server took it as {@code system:anonymous};
   *     empty for any other failure
   */
  public static Optional<String> describe(KubernetesClientException e) {
    if (e.getCode() == 401) {
      return Optional.of(UNAUTHORIZED);
    }
    if (e.getCode() != 403) {
      return Optional.empty();
    }
    String message =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : "";
    if (message.startsWith("forbidden: ")) {
      message = message.substring("forbidden: ".length());
    }
    return Optional.of(
        "answered 403 Forbidden"
            + (message.isEmpty() ? "" : ": " + message)
            + (message.contains("\"system:anonymous\"")
                ? " (the request carried no credentials)"
                : ""));
  }
}

package dev.ironcore.maintenance.testkit.faults;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Writes an error the way kube-apiserver does: a {@code meta/v1 Status} JSON body with {@code
 * code}, {@code reason} and a message, plus {@code Retry-After} (whole seconds) on a 429, as the
 * API server's priority and fairness does.
 */
final class StatusReply {
  private StatusReply() {}

  /** The Status reason kube-apiserver uses for {@code status}. */
  static String reason(int status) {
    return switch (status) {
      case 429 -> "TooManyRequests";
      case 500 -> "InternalError";
      case 503 -> "ServiceUnavailable";
      case 504 -> "Timeout";
      default -> "Unknown";
    };
  }

  /** The JSON body of the reply, e.g. for a 429 with {@code retryAfterSeconds} 1. */
  static String body(int status, long retryAfterSeconds) {
    String details =
        status == 429 ? ",\"details\":{\"retryAfterSeconds\":" + retryAfterSeconds + "}" : "";
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\"injected by the fault proxy: "
        + reason(status)
        + "\",\"reason\":\""
        + reason(status)
        + "\""
        + details
        + ",\"code\":"
        + status
        + "}";
  }

  static void write(Response response, Callback callback, int status, long retryAfterSeconds) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    if (status == 429) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfterSeconds));
    }
    response.write(
        true,
        ByteBuffer.wrap(body(status, retryAfterSeconds).getBytes(StandardCharsets.UTF_8)),
        callback);
  }
}

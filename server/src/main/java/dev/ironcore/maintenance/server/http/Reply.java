package dev.ironcore.maintenance.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A whole HTTP reply of an {@link Endpoint}: status, {@code Content-Type} and body.
 *
 * @param status HTTP status code
 * @param contentType the {@code Content-Type} header value
 * @param body the body bytes (sent as they are, with their {@code Content-Length})
 */
public record Reply(int status, String contentType, byte[] body) {
  /** {@code text/plain; charset=utf-8}. */
  public static final String TEXT = "text/plain; charset=utf-8";

  /** Checks the arguments. */
  public Reply {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
  }

  /**
   * @return 200 {@code application/json} with {@code json}
   */
  public static Reply json(byte[] json) {
    return new Reply(200, "application/json", json);
  }

  /**
   * @return {@code status} with {@code text} as {@code text/plain; charset=utf-8}
   */
  public static Reply text(int status, String text) {
    return new Reply(status, TEXT, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @return the body as UTF-8 text (for tests and logs)
   */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}

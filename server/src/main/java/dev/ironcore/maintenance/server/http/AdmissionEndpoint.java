package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Request;

/**
 * The HTTP side of one admission webhook path: a {@link ReviewEndpoint} (body cap, media type,
 * 413/415) whose answer is {@link AdmissionReviews#answer(String, byte[], AdmissionHandler)},
 * naming the webhook by the request path for the log. Every body that was read gets a 200 {@code
 * application/json} AdmissionReview, even malformed ones (the reply then carries an errored
 * response).
 *
 * <p>Each reply's {@link AdmissionResponse} is also handed to an optional listener (e.g. to count
 * decisions), so the admission core stays free of metrics.
 */
public final class AdmissionEndpoint implements Endpoint {
  /** Largest accepted body: {@link ReviewEndpoint#MAX_BODY_BYTES} (7 MiB). */
  public static final long MAX_BODY_BYTES = ReviewEndpoint.MAX_BODY_BYTES;

  private final ReviewEndpoint endpoint;

  /**
   * @param handler the decision for this path
   */
  public AdmissionEndpoint(AdmissionHandler handler) {
    this(handler, MAX_BODY_BYTES);
  }

  /**
   * @param maxBodyBytes largest accepted body in bytes
   */
  public AdmissionEndpoint(AdmissionHandler handler, long maxBodyBytes) {
    this(handler, maxBodyBytes, response -> {});
  }

  /**
   * @param handler the decision for this path
   * @param maxBodyBytes largest accepted body in bytes
   * @param answered called with the response of every reply review (not for 413/415), before the
   *     reply is sent
   */
  public AdmissionEndpoint(
      AdmissionHandler handler, long maxBodyBytes, Consumer<AdmissionResponse> answered) {
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(answered, "answered");
    this.endpoint =
        new ReviewEndpoint(
            (path, body, allowance) -> {
              AdmissionReviews.Answer answer =
                  AdmissionReviews.answer(path, body, handler, allowance);
              answered.accept(answer.response());
              return answer.toBytes();
            },
            maxBodyBytes);
  }

  @Override
  public Reply answer(Request request) throws IOException {
    return endpoint.answer(request);
  }

  /**
   * @return true for {@code application/json}, ignoring case and parameters such as charset
   */
  static boolean isJson(String contentType) {
    return ReviewEndpoint.isJson(contentType);
  }
}

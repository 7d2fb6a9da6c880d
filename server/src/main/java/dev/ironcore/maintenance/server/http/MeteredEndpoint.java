package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.conversion.ConversionReviews;
import dev.ironcore.maintenance.server.metrics.WebhookMetrics;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Objects;

/**
 * Wraps the handler of one webhook path with its HTTP metrics: in flight while the handler runs,
 * then the time taken and the status code answered ({@link WebhookMetrics.Request#answered(int)}).
 * A handler that throws is counted as 500, which is what Javalin then answers.
 */
public final class MeteredEndpoint implements Handler {
  private final String webhook;
  private final Handler delegate;
  private final WebhookMetrics metrics;

  /**
   * @param webhook the label for the meters: the registered path, not the request's (which may
   *     differ, e.g. by a trailing slash)
   * @param delegate the handler that answers
   * @param metrics where to record
   */
  public MeteredEndpoint(String webhook, Handler delegate, WebhookMetrics metrics) {
    this.webhook = Objects.requireNonNull(webhook, "webhook");
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /**
   * @param webhook the registered admission path
   * @return an {@link AdmissionEndpoint} for {@code handler} that also counts its decisions,
   *     wrapped with the HTTP metrics
   */
  public static MeteredEndpoint admission(
      String webhook, AdmissionHandler handler, WebhookMetrics metrics) {
    AdmissionEndpoint endpoint =
        new AdmissionEndpoint(
            handler,
            AdmissionEndpoint.MAX_BODY_BYTES,
            response -> metrics.decided(webhook, response.decision()));
    return new MeteredEndpoint(webhook, endpoint, metrics);
  }

  /**
   * @param webhook the registered conversion path ({@code /convert})
   * @return a {@link ReviewEndpoint} answering ConversionReviews ({@link ConversionReviews}) that
   *     also counts Success/Failure results, wrapped with the HTTP metrics
   */
  public static MeteredEndpoint conversion(String webhook, WebhookMetrics metrics) {
    ReviewEndpoint endpoint =
        new ReviewEndpoint(
            (path, body) -> {
              ConversionReviews.Answer answer = ConversionReviews.answer(path, body);
              metrics.converted(webhook, answer.succeeded());
              return ConversionReviews.toBytes(answer.review());
            },
            ReviewEndpoint.MAX_BODY_BYTES);
    return new MeteredEndpoint(webhook, endpoint, metrics);
  }

  @Override
  public void handle(Context ctx) throws Exception {
    WebhookMetrics.Request request = metrics.started(webhook);
    int status = 500;
    try {
      delegate.handle(ctx);
      status = ctx.statusCode();
    } finally {
      request.answered(status);
    }
  }
}

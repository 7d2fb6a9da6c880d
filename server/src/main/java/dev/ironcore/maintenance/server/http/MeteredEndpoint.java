package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.conversion.ConversionReviews;
import dev.ironcore.maintenance.server.metrics.WebhookMetrics;
import java.io.IOException;
import java.util.Objects;
import org.eclipse.jetty.server.Request;

/**
 * Wraps the handler of one webhook path with its HTTP metrics: in flight while the handler runs,
 * then the time taken and the status code answered ({@link WebhookMetrics.Request#answered(int)}).
 * An endpoint that throws is counted as 500, which is what {@link Routes} then answers.
 */
public final class MeteredEndpoint implements Endpoint {
  private final String webhook;
  private final Endpoint delegate;
  private final WebhookMetrics metrics;

  /**
   * @param webhook the label for the meters: the registered path, not the request's (which may
   *     differ, e.g. by a trailing slash)
   * @param delegate the handler that answers
   * @param metrics where to record
   */
  public MeteredEndpoint(String webhook, Endpoint delegate, WebhookMetrics metrics) {
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
            (path, body, allowance) -> {
              // one object at a time: a list's review can be megabytes
              ConversionReviews.Encoded answer =
                  ConversionReviews.answerEncoded(path, body, allowance);
              metrics.converted(webhook, answer.succeeded());
              return answer.json();
            },
            ReviewEndpoint.MAX_BODY_BYTES);
    return new MeteredEndpoint(webhook, endpoint, metrics);
  }

  @Override
  public Reply answer(Request request) throws IOException {
    WebhookMetrics.Request metered = metrics.started(webhook);
    int status = 500;
    try {
      Reply reply = delegate.answer(request);
      status = reply.status();
      return reply;
    } finally {
      metered.answered(status);
    }
  }
}

package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of one admission webhook path: reads the body (capped), checks the media type, and
 * hands the bytes to {@link AdmissionReviews#answer(String, byte[], AdmissionHandler)}, naming the
 * webhook by the request path for the log. Answers
 *
 * <ul>
 *   <li>200 {@code application/json} AdmissionReview for every body that was read, even malformed
 *       ones (the reply then carries an errored response);
 *   <li>415 when {@code Content-Type} is not {@code application/json};
 *   <li>413 when the body exceeds {@link #MAX_BODY_BYTES}.
 * </ul>
 *
 * Each reply's {@link AdmissionResponse} is also handed to an optional listener (e.g. to count
 * decisions), so the admission core stays free of metrics.
 */
public final class AdmissionEndpoint implements Handler {
  /**
   * Largest accepted body: 7 MiB, as controller-runtime (the API server's own limit is 3 MiB
   * objects).
   */
  public static final long MAX_BODY_BYTES = 7L * 1024 * 1024;

  /** How much of an oversized body is still read and dropped before answering 413: 16 MiB. */
  static final long DISCARD_AFTER_LIMIT_BYTES = 16L * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(AdmissionEndpoint.class);

  private final AdmissionHandler handler;
  private final long maxBodyBytes;
  private final Consumer<AdmissionResponse> answered;

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
    this.handler = Objects.requireNonNull(handler, "handler");
    this.maxBodyBytes = maxBodyBytes;
    this.answered = Objects.requireNonNull(answered, "answered");
  }

  @Override
  public void handle(Context ctx) throws IOException {
    String contentType = ctx.header("Content-Type");
    if (!isJson(contentType)) {
      plain(
          ctx,
          415,
          "Content-Type must be application/json, got "
              + (contentType == null ? "none" : "\"" + contentType + "\""));
      return;
    }
    byte[] body;
    try {
      body =
          BoundedBody.read(
              ctx.req().getInputStream(), ctx.req().getContentLengthLong(), maxBodyBytes);
    } catch (BoundedBody.TooLargeException e) {
      // Drain (bounded) what the client is still sending, or it may see a reset, not the 413.
      BoundedBody.discard(ctx.req().getInputStream(), DISCARD_AFTER_LIMIT_BYTES);
      LOG.warn("{} {}: rejected body larger than {} bytes", ctx.method(), ctx.path(), maxBodyBytes);
      plain(
          ctx,
          413,
          "request body is larger than the limit of "
              + maxBodyBytes
              + " bytes ("
              + (maxBodyBytes / (1024 * 1024))
              + " MiB)");
      return;
    }
    AdmissionReviews.Answer answer = AdmissionReviews.answer(ctx.path(), body, handler);
    answered.accept(answer.response());
    ctx.status(200)
        .contentType("application/json")
        .result(AdmissionReviews.toBytes(answer.review()));
  }

  /**
   * @return true for {@code application/json}, ignoring case and parameters such as charset
   */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
    return mediaType.toLowerCase(Locale.ROOT).equals("application/json");
  }

  private static void plain(Context ctx, int status, String message) {
    ctx.status(status).contentType("text/plain; charset=utf-8").result(message + "\n");
  }
}

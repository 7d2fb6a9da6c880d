package dev.ironcore.maintenance.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side shared by every review path (admission and conversion): reads the body (capped),
 * checks the media type, and hands the bytes to a pure {@link Answerer}. Answers
 *
 * <ul>
 *   <li>200 {@code application/json} with the answerer's bytes for every body that was read, even
 *       malformed ones (the answerer replies with an error inside the review);
 *   <li>415 {@code text/plain} when {@code Content-Type} is not {@code application/json};
 *   <li>413 {@code text/plain} when the body exceeds the limit.
 * </ul>
 */
public final class ReviewEndpoint implements Handler {
  /**
   * Largest accepted body: 7 MiB, as controller-runtime (the API server's own limit is 3 MiB
   * objects).
   */
  public static final long MAX_BODY_BYTES = 7L * 1024 * 1024;

  /** How much of an oversized body is still read and dropped before answering 413: 16 MiB. */
  static final long DISCARD_AFTER_LIMIT_BYTES = 16L * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(ReviewEndpoint.class);

  /** A pure review → reply function; must not throw. */
  @FunctionalInterface
  public interface Answerer {
    /**
     * @param path the request path, for logs
     * @param body the whole request body (any bytes, at most the limit)
     * @return the reply body (JSON)
     */
    byte[] answer(String path, byte[] body);
  }

  private final Answerer answerer;
  private final long maxBodyBytes;

  /**
   * @param answerer turns the body into the reply
   * @param maxBodyBytes largest accepted body in bytes
   */
  public ReviewEndpoint(Answerer answerer, long maxBodyBytes) {
    this.answerer = Objects.requireNonNull(answerer, "answerer");
    this.maxBodyBytes = maxBodyBytes;
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
    byte[] reply = answerer.answer(ctx.path(), body);
    ctx.status(200).contentType("application/json").result(reply);
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

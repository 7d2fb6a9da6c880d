package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.admission.TokenAllowance;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side shared by every review path (admission and conversion): reads the body (capped),
 * checks the media type, and hands the bytes to a pure {@link Answerer}. Answers
 *
 * <ul>
 *   <li>200 {@code application/json} with the answerer's bytes for every body that was read, even
 *       malformed ones (the answerer replies with an error inside the review);
 *   <li>415 {@code text/plain} when {@code Content-Type} is not {@code application/json}, or when
 *       the body has a {@code Content-Encoding} other than {@code identity} (kube-apiserver sends
 *       reviews uncompressed; a gzip body was read as malformed JSON);
 *   <li>501 {@code text/plain} when an HTTP/1.1 body has a transfer coding other than {@code
 *       chunked} (RFC 9112 §6.1; Jetty undoes only the chunking);
 *   <li>413 {@code text/plain} when the body exceeds the limit: at once when its Content-Length
 *       says so, else once the limit is reached; what the client still sends (up to {@link
 *       BodyDrain#LIMIT_BYTES}) is read after the answer ({@link Routes}), so that it reads the 413
 *       instead of a reset;
 *   <li>413 {@code text/plain} when the review's tree would hold more JSON tokens than the whole
 *       {@link BodyBudget} allows ({@link TokenAllowance}: many small values take far more heap
 *       than their bytes), 503 when only not now, while other requests hold the room;
 *   <li>400 {@code text/plain} when the body ends short of its Content-Length (the client closed
 *       the connection or reset the stream), 408 when the client sent nothing more within the idle
 *       timeout: logged as one WARN line, never a 5xx; 503 when the server stopped reading because
 *       it is shutting down.
 * </ul>
 */
public final class ReviewEndpoint implements Endpoint {
  /**
   * Largest accepted body: 7 MiB, as controller-runtime (the API server's own limit is 3 MiB
   * objects).
   */
  public static final long MAX_BODY_BYTES = 7L * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(ReviewEndpoint.class);

  /** A pure review → reply function; must not throw. */
  @FunctionalInterface
  public interface Answerer {
    /**
     * @param path the request path, for logs
     * @param body the whole request body (any bytes, at most the limit)
     * @param allowance bounds the tokens of the trees read from {@code body} (the request's room in
     *     the {@link BodyBudget})
     * @return the reply body (JSON)
     * @throws TokenAllowance.Refused when a tree would exceed {@code allowance}
     */
    byte[] answer(String path, byte[] body, TokenAllowance allowance);
  }

  private final Answerer answerer;
  private final long maxBodyBytes;

  /**
   * @param answerer turns the body into the reply
   * @param maxBodyBytes largest accepted body in bytes, at most {@link #MAX_BODY_BYTES}
   * @throws IllegalArgumentException when {@code maxBodyBytes} is larger
   */
  public ReviewEndpoint(Answerer answerer, long maxBodyBytes) {
    this.answerer = Objects.requireNonNull(answerer, "answerer");
    if (maxBodyBytes > Routes.BODY_LIMIT_BYTES) {
      // Routes reads no more than that before the endpoint runs, and no thread waits for more
      throw new IllegalArgumentException(
          "maxBodyBytes must be at most " + Routes.BODY_LIMIT_BYTES + ", got " + maxBodyBytes);
    }
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public Reply answer(Request request) throws IOException {
    String contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    String path = Request.getPathInContext(request);
    if (!isJson(contentType)) {
      String message =
          "Content-Type must be application/json, got "
              + (contentType == null ? "none" : "\"" + contentType + "\"");
      LOG.warn("{} {}: 415, {}", request.getMethod(), path, message);
      return plain(415, message);
    }
    // every value of every Content-Encoding field: "identity, gzip" or a second field is gzip too
    Reply refused =
        unsupportedCoding(
            request,
            HttpHeader.CONTENT_ENCODING,
            "identity",
            415,
            "send the review uncompressed (as kube-apiserver does)");
    if (refused == null) {
      // HTTP/1.1 only (HTTP/2 has no Transfer-Encoding): Jetty undoes the chunking and passes any
      // other coding through, so "gzip, chunked" would reach the review as gzip bytes
      refused =
          unsupportedCoding(
              request,
              HttpHeader.TRANSFER_ENCODING,
              "chunked",
              501,
              "send the review with a Content-Length (as kube-apiserver does) or chunked only");
    }
    if (refused != null) {
      return refused;
    }
    byte[] body;
    try {
      body =
          BoundedBody.read(
              Content.Source.asInputStream(request), request.getLength(), maxBodyBytes);
    } catch (BoundedBody.IncompleteException e) {
      if (request.getConnectionMetaData().getConnector().getServer().isStopping()) {
        // not the client's fault: the server stops and no longer reads
        LOG.warn(
            "{} {}: body not received before the server stopped ({} bytes came)",
            request.getMethod(),
            path,
            e.received());
        return plain(
            503,
            "the server is shutting down and stopped reading the request body ("
                + e.received()
                + " bytes came); send the request again");
      }
      // the client is gone or stalled: one line, no stack trace, and no 5xx (not our fault);
      // Jetty closes the connection, whose rest of the body it cannot find
      LOG.warn("{} {}: body not received: {}", request.getMethod(), path, e.getMessage());
      return plain(e.timedOut() ? 408 : 400, "request body incomplete: " + e.getMessage());
    } catch (BoundedBody.TooLargeException e) {
      LOG.warn(
          "{} {}: rejected body larger than {} bytes{}",
          request.getMethod(),
          path,
          maxBodyBytes,
          e.declared() ? " (Content-Length " + request.getLength() + ")" : "");
      return plain(
          413,
          "request body is larger than the limit of "
              + maxBodyBytes
              + " bytes ("
              + (maxBodyBytes / (1024 * 1024))
              + " MiB)");
    }
    try {
      return Reply.json(answerer.answer(path, body, allowance(request, body)));
    } catch (TokenAllowance.Refused e) {
      int status = e.never() ? 413 : 503;
      LOG.warn("{} {}: {}, {}", request.getMethod(), path, status, e.getMessage());
      return plain(status, e.getMessage());
    }
  }

  /**
   * The tokens this request may hold in a tree: from its reservation in the {@link BodyBudget}
   * ({@link Routes} reserved it before the body was read), else unlimited (a request without one
   * has an empty body, or comes from a test that calls the endpoint directly).
   */
  private static TokenAllowance allowance(Request request, byte[] body) {
    if (request instanceof BodyPrefetch.Replay replay && replay.reservation() != null) {
      return replay.reservation().tokens(body);
    }
    return TokenAllowance.UNLIMITED;
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

  /**
   * The refusal of a request whose {@code header} (every field, every comma-separated value) names
   * a coding other than {@code allowed}, as {@code status} with one line ending in {@code hint}
   * (also logged as a WARN); null when it names none.
   */
  private static Reply unsupportedCoding(
      Request request, HttpHeader header, String allowed, int status, String hint) {
    java.util.List<String> codings = request.getHeaders().getCSV(header, false);
    if (codings.stream().allMatch(e -> e.isBlank() || allowed.equalsIgnoreCase(e.strip()))) {
      return null;
    }
    String message =
        header.asString() + " \"" + String.join(", ", codings) + "\" is not supported: " + hint;
    LOG.warn(
        "{} {}: {}, {}", request.getMethod(), Request.getPathInContext(request), status, message);
    return plain(status, message);
  }

  private static Reply plain(int status, String message) {
    return Reply.text(status, message + "\n");
  }
}

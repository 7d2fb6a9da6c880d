package dev.ironcore.maintenance.server.http;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error replies, for requests it refuses before they reach {@link Routes} (headers over
 * 8 KB: 431 "Request Header Fields Too Large"; an ambiguous path such as {@code
 * //validate/machine}: 400 "Ambiguous URI empty segment"; an unknown HTTP version: 505), as {@code
 * text/plain; charset=utf-8} with one short line, like every other error of the server: the
 * message, or the status's reason phrase when there is none. No URI, cause or stack trace.
 *
 * <p>Jetty's {@link ErrorHandler} picks HTML, JSON or plain text by the request's {@code Accept}
 * header (HTML when there is none, or the headers could not be read) and has no setting that fixes
 * the type, so {@link #generateResponse} always asks it for plain text and {@link #writeErrorPlain}
 * writes the line alone (Jetty's plain text has four lines, with the URI).
 */
public final class PlainErrors extends ErrorHandler {
  /** Plain text also as the default (the type used when there is no {@code Accept} header). */
  public PlainErrors() {
    setDefaultResponseMimeType(MimeTypes.Type.TEXT_PLAIN.asString());
  }

  /** Writes the error as plain text whatever the request accepts. */
  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback)
      throws IOException {
    if (!generateAcceptableResponse(
        request,
        response,
        callback,
        MimeTypes.Type.TEXT_PLAIN.asString(),
        List.of(StandardCharsets.UTF_8),
        code,
        message,
        cause)) {
      callback.succeeded(); // as Jetty does when no type fits: the status without a body
    }
  }

  /** One line: {@code message}, or the reason phrase of {@code code} when it is null or blank. */
  @Override
  protected void writeErrorPlain(
      Request request, PrintWriter writer, int code, String message, Throwable cause) {
    writer.write(message == null || message.isBlank() ? HttpStatus.getMessage(code) : message);
    writer.write('\n');
  }
}

package dev.ironcore.maintenance.server.http;

import java.io.IOException;
import org.eclipse.jetty.server.Request;

/**
 * One route of the webhook server ({@link Routes}): turns a request into a whole {@link Reply}.
 * Must not block on anything but the request's body: a body of up to {@link
 * Routes#INLINE_LIMIT_BYTES} is already in memory when this runs (possibly on the thread that reads
 * the connection), a larger one is read on a pool thread that may block.
 */
@FunctionalInterface
public interface Endpoint {
  /**
   * @param request the request; its body may be read once
   * @return the reply to send
   * @throws IOException when reading the request fails (the client gave up); {@link Routes} then
   *     answers 500 if it still can
   */
  Reply answer(Request request) throws IOException;
}

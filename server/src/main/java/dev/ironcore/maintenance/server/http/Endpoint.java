package dev.ironcore.maintenance.server.http;

import java.io.IOException;
import org.eclipse.jetty.server.Request;

/**
 * One route of the webhook server ({@link Routes}): turns a request into a whole {@link Reply}.
 * Must not block: the request's body, up to {@link Routes#BODY_LIMIT_BYTES} and one byte more, is
 * already in memory when this runs (maybe on the thread that reads the connection); an endpoint
 * reads no further than that (a larger Content-Length is for the endpoint to refuse unread).
 */
@FunctionalInterface
public interface Endpoint {
  /**
   * @param request the request; its body may be read once (from memory)
   * @return the reply to send
   * @throws IOException when reading the request fails (the client gave up); {@link Routes} then
   *     answers 500 if it still can
   */
  Reply answer(Request request) throws IOException;
}

package dev.ironcore.maintenance.server.http;

import java.io.IOException;
import org.eclipse.jetty.server.Request;

/**
 * One route of the webhook server ({@link Routes}): turns a request into a whole {@link Reply}.
 * Runs on a request thread that may block (e.g. while reading the body).
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

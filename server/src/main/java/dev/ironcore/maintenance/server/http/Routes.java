package dev.ironcore.maintenance.server.http;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook server's routing on Jetty's core handler API (no servlet container): exact paths, one
 * {@link Endpoint} per method and path. A trailing slash is ignored ({@code /readyz/} is {@code
 * /readyz}). An unknown path gets 404, a known path with another method 405 with {@code Allow}; an
 * endpoint that throws gets 500 (when nothing was sent yet). Add every route before the server
 * starts.
 */
public final class Routes extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(Routes.class);

  private final Map<String, Map<String, Endpoint>> byPath = new LinkedHashMap<>();

  /**
   * @param path exact path, e.g. {@code /mutate/machine}
   * @return this
   */
  public Routes post(String path, Endpoint endpoint) {
    return add("POST", path, endpoint);
  }

  /**
   * @param path exact path, e.g. {@code /healthz}
   * @return this
   */
  public Routes get(String path, Endpoint endpoint) {
    return add("GET", path, endpoint);
  }

  private Routes add(String method, String path, Endpoint endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    Endpoint old =
        byPath.computeIfAbsent(normalize(path), p -> new LinkedHashMap<>()).put(method, endpoint);
    if (old != null) {
      throw new IllegalArgumentException(method + " " + path + " is already routed");
    }
    return this;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Map<String, Endpoint> methods = byPath.get(normalize(Request.getPathInContext(request)));
    if (methods == null) {
      BoundedBody.discardRest(request);
      send(response, Reply.text(404, "not found"), callback);
      return true;
    }
    Endpoint endpoint = methods.get(request.getMethod());
    if (endpoint == null) {
      BoundedBody.discardRest(request);
      response
          .getHeaders()
          .put(HttpHeader.ALLOW, String.join(", ", new TreeSet<>(methods.keySet())));
      send(response, Reply.text(405, "method " + request.getMethod() + " not allowed"), callback);
      return true;
    }
    Reply reply;
    try {
      reply = endpoint.answer(request);
    } catch (Exception e) {
      LOG.error(
          "{} {}: {}", request.getMethod(), Request.getPathInContext(request), e.toString(), e);
      Response.writeError(request, response, callback, 500);
      return true;
    }
    send(response, reply, callback);
    return true;
  }

  private static void send(Response response, Reply reply, Callback callback) {
    response.setStatus(reply.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.body().length);
    response.write(true, ByteBuffer.wrap(reply.body()), callback);
  }

  private static String normalize(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}

package dev.ironcore.maintenance.server.http;

import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Reads and drops what is left of a request's body after its reply was sent (a refusal such as 404,
 * 413 or 415 answers before reading it), without a thread waiting for it, then completes the
 * request. A client still sending its body thus reads the reply instead of a connection reset, and
 * its keep-alive connection stays usable. At most {@link #LIMIT_BYTES} are read; a larger body, a
 * Content-Length over that, or a body that fails (the client left, or sent nothing more within the
 * idle timeout) ends the request at once, and Jetty closes a connection whose body was not read to
 * its end.
 */
final class BodyDrain implements Runnable, Invocable {
  /** The most bytes read and dropped after a reply: 16 MiB. */
  static final long LIMIT_BYTES = 16L * 1024 * 1024;

  private final Request request;
  private final Callback done;
  private long dropped;

  private BodyDrain(Request request, Callback done) {
    this.request = request;
    this.done = done;
  }

  /**
   * @param request the answered request
   * @param done the request's callback, succeeded once the body was dropped or given up on
   */
  static void start(Request request, Callback done) {
    if (request.getLength() > LIMIT_BYTES) {
      done.succeeded();
      return;
    }
    new BodyDrain(request, done).run();
  }

  @Override
  public void run() {
    while (true) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        request.demand(this);
        return;
      }
      dropped += chunk.remaining();
      boolean end = chunk.isLast() || Content.Chunk.isFailure(chunk) || dropped > LIMIT_BYTES;
      chunk.release();
      if (end) {
        done.succeeded();
        return;
      }
    }
  }

  @Override
  public InvocationType getInvocationType() {
    return InvocationType.NON_BLOCKING;
  }
}

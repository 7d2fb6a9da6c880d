package dev.ironcore.maintenance.server.http;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Reads a request's body without blocking a thread: each chunk as Jetty delivers it, waiting for
 * the next one with {@link Request#demand(Runnable)} instead of a parked thread. Once the body has
 * ended (its last chunk, or a failure chunk such as the idle timeout or a reset), or more than
 * {@code inlineLimit} bytes have come, the request is handed on as a {@link Replay}: a request
 * whose reads return the chunks read so far, then go on reading the real request.
 *
 * <p>Why: a thread blocked on a body must be woken by the thread that parses the body's bytes (over
 * HTTP/2 the HEADERS frame starts the request, its DATA frame comes after), a hand-off between
 * threads on every request. Run from a handler declared {@link
 * Invocable.InvocationType#NON_BLOCKING}, Jetty calls this on the thread that parsed the bytes, and
 * a small review can be answered there too (see {@link Routes}).
 */
final class BodyPrefetch implements Runnable, Invocable {
  private final Request request;
  private final long inlineLimit;
  private final Consumer<Replay> then;
  private final ArrayDeque<Content.Chunk> chunks = new ArrayDeque<>();
  private long bytes;

  private BodyPrefetch(Request request, long inlineLimit, Consumer<Replay> then) {
    this.request = request;
    this.inlineLimit = inlineLimit;
    this.then = then;
  }

  /**
   * Starts reading; {@code then} is called once, on the thread that read the last chunk (maybe this
   * one), with the request to answer.
   *
   * @param request the request whose body is read
   * @param inlineLimit bytes after which reading stops and the rest is left to the replay's reader
   * @param then receives the replay; {@link Replay#complete()} says whether the whole body is in it
   */
  static void start(Request request, long inlineLimit, Consumer<Replay> then) {
    new BodyPrefetch(request, inlineLimit, then).run();
  }

  @Override
  public void run() {
    while (true) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        request.demand(this);
        return;
      }
      chunks.add(chunk);
      bytes += chunk.remaining();
      if (chunk.isLast() || Content.Chunk.isFailure(chunk)) {
        then.accept(new Replay(request, chunks, true));
        return;
      }
      if (bytes > inlineLimit) {
        then.accept(new Replay(request, chunks, false));
        return;
      }
    }
  }

  @Override
  public InvocationType getInvocationType() {
    return InvocationType.NON_BLOCKING;
  }

  /**
   * The request with the chunks already read put back in front of its body: {@link #read()} returns
   * them first (the reader releases each, as with any chunk), then reads the real request. Read by
   * one thread at a time, as any request.
   */
  static final class Replay extends Request.Wrapper {
    private final ArrayDeque<Content.Chunk> chunks;
    private final boolean complete;
    private boolean endReached;

    Replay(Request request, ArrayDeque<Content.Chunk> chunks, boolean complete) {
      super(request);
      this.chunks = chunks;
      this.complete = complete;
    }

    /** A replay of nothing read yet: {@link #read()} reads the real request. */
    static Replay of(Request request) {
      return new Replay(request, new ArrayDeque<>(), false);
    }

    /** True when the whole body (or how it failed) is in hand: reading never waits. */
    boolean complete() {
      return complete;
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk chunk = chunks.poll();
      if (chunk == null) {
        chunk = super.read();
      }
      if (chunk != null && (chunk.isLast() || Content.Chunk.isFailure(chunk))) {
        endReached = true;
      }
      return chunk;
    }

    @Override
    public void demand(Runnable demandCallback) {
      if (!chunks.isEmpty()) {
        demandCallback.run();
      } else {
        super.demand(demandCallback);
      }
    }

    /**
     * True once a reader was handed the body's last chunk or a failure (the client left, or the
     * idle timeout): nothing more is to be read.
     */
    boolean endReached() {
      return endReached;
    }

    /** Releases what no reader took (a reply sent without reading the body to its end). */
    void releaseUnread() {
      for (Content.Chunk chunk; (chunk = chunks.poll()) != null; ) {
        chunk.release();
      }
    }
  }
}

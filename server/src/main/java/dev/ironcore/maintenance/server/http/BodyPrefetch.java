package dev.ironcore.maintenance.server.http;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Reads a request's body without blocking a thread: each chunk as Jetty delivers it, waiting for
 * the next one with {@link Request#demand(Runnable)} instead of a parked thread. Once the body has
 * ended (its last chunk, or a failure chunk: the client left, reset the stream or sent nothing more
 * within the idle timeout), or more than {@code maxBytes} have come, the request is handed on as a
 * {@link Replay}: a request whose reads return what was read, then go on reading the real request.
 * Up to {@link #RETAINED_BYTES} in at most {@link #RETAINED_CHUNKS} are kept as Jetty's own chunks;
 * a larger body, or one in more pieces, is copied to the heap as it comes, and the chunks released:
 * what a request holds follows the bytes that came, never a declared length. A body of unknown
 * length pauses after its first bytes until it has room in the {@link BodyBudget} (a caller
 * reserves a declared length before it starts this). A body that does not arrive within {@link
 * #DEADLINE} is given up on.
 *
 * <p>Why: a thread blocked on a body must be woken by the thread that parses the body's bytes (over
 * HTTP/2 the HEADERS frame starts the request, its DATA frames come after), a hand-off between
 * threads on every request; a thread waiting for a slow client is a thread less for the others; and
 * a thread waiting for a stream that Jetty reset itself (an HTTP/2 body longer or shorter than its
 * content-length) was never woken at all. Run from a handler declared {@link
 * Invocable.InvocationType#NON_BLOCKING}, Jetty calls this on the thread that parsed the bytes (see
 * {@link Routes}).
 */
final class BodyPrefetch implements Runnable, Invocable {
  /** The most bytes kept as Jetty's chunks (network buffers) before the body is copied: 64 KiB. */
  static final int RETAINED_BYTES = 64 * 1024;

  /**
   * The most chunks kept before the body is copied: 8. Each chunk costs about 200 bytes besides its
   * data, so a body sent in 1-byte pieces (a 1-byte HTTP/2 DATA frame, TLS record or HTTP/1.1 chunk
   * each) would otherwise cost 200 times its size: four such 64 KiB bodies used to exhaust the
   * shipped 64 MiB heap (found by a fresh-eyes check).
   */
  static final int RETAINED_CHUNKS = 8;

  /**
   * How long a body may take to arrive once reading it began: 10 seconds, the API server's default
   * webhook timeout (by then its caller has given up). A body still incomplete then is answered 408
   * and its room in the {@link BodyBudget} released: a client trickling its body (or an HTTP/2
   * stream Jetty reset itself, which never completes) cannot hold the budget.
   */
  static final Duration DEADLINE = Duration.ofSeconds(10);

  private final Request request;
  private final long maxBytes;
  private final BodyBudget budget;
  private final Duration deadline;
  private final Consumer<Replay> then;
  private final long startNanos = System.nanoTime();
  private BodyBudget.Reservation reservation;
  private Scheduler.Task deadlineTask;
  private boolean finished;
  private final ArrayDeque<Content.Chunk> chunks = new ArrayDeque<>();
  private byte[] copy;
  private int copied;
  private boolean last;
  private long bytes;

  /**
   * A reader of {@code request}'s body, started with {@link #run()}: {@code then} is called once,
   * on the thread that read the last chunk (maybe this one), or on a scheduler thread when the body
   * did not arrive within the deadline, with the request to answer.
   *
   * @param request the request whose body is read
   * @param maxBytes bytes after which reading stops (the replay then holds more than this, and its
   *     reader reads the rest from the request)
   * @param budget for a body of unknown length: reserved (the largest body, {@code maxBytes} and
   *     one byte) when its first bytes come, reading paused until it is granted; {@code null} when
   *     the caller reserved already ({@code reservation}) or the body is empty
   * @param reservation the room the caller reserved for a declared length, released early when the
   *     deadline passes, or {@code null}
   * @param deadline how long the body may take to arrive ({@link #DEADLINE} outside tests)
   * @param then receives the replay
   */
  BodyPrefetch(
      Request request,
      long maxBytes,
      BodyBudget budget,
      BodyBudget.Reservation reservation,
      Duration deadline,
      Consumer<Replay> then) {
    this.request = request;
    this.maxBytes = maxBytes;
    this.budget = budget;
    this.reservation = reservation;
    this.deadline = deadline;
    this.then = then;
  }

  @Override
  public void run() {
    synchronized (this) {
      if (finished) {
        return; // the deadline passed while Jetty still held a demand of ours
      }
      while (true) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          scheduleDeadline();
          request.demand(this);
          return;
        }
        if (Content.Chunk.isFailure(chunk)) {
          finish(chunk, false);
          return;
        }
        bytes += chunk.remaining();
        last = chunk.isLast();
        keep(chunk);
        if (last || bytes > maxBytes) {
          finish(null, false);
          return;
        }
        if (budget != null && reservation == null && bytes > 0) {
          // a body of unknown length: room for the largest one before more is read
          budget.reserve(
              maxBytes + 1,
              request.getComponents().getExecutor(),
              request.getComponents().getScheduler(),
              this::granted,
              this::refused);
          return;
        }
      }
    }
  }

  private void granted(BodyBudget.Reservation granted) {
    synchronized (this) {
      if (finished) {
        granted.run();
        return;
      }
      reservation = granted;
    }
    run();
  }

  private synchronized void refused() {
    if (!finished) {
      finish(null, true);
    }
  }

  /** Arms the deadline once the body did not come at once (most bodies do: no timer for them). */
  private void scheduleDeadline() {
    if (deadlineTask == null) {
      long left = deadline.toNanos() - (System.nanoTime() - startNanos);
      deadlineTask =
          request
              .getComponents()
              .getScheduler()
              .schedule(this::deadlinePassed, Math.max(0, left), TimeUnit.NANOSECONDS);
    }
  }

  private void deadlinePassed() {
    long came;
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
      came = bytes;
      for (Content.Chunk kept; (kept = chunks.poll()) != null; ) {
        kept.release();
      }
      copy = null;
    }
    if (reservation != null) {
      reservation.run(); // nothing of it is held any more
    }
    then.accept(Replay.timedOut(request, came, reservation));
  }

  private void keep(Content.Chunk chunk) {
    if (copy == null && bytes <= RETAINED_BYTES && chunks.size() < RETAINED_CHUNKS) {
      chunks.add(chunk);
      return;
    }
    if (copy == null) {
      // grown as the bytes come, never to a declared length ahead of them: a client declaring
      // 7 MiB and sending a few bytes makes the server hold a few bytes
      copy = new byte[(int) Math.max(bytes, 16 * 1024)];
      for (Content.Chunk kept; (kept = chunks.poll()) != null; ) {
        append(kept);
      }
    }
    append(chunk);
  }

  private void append(Content.Chunk chunk) {
    java.nio.ByteBuffer data = chunk.getByteBuffer();
    int n = data.remaining();
    if (copied + n > copy.length) {
      long declared = request.getLength();
      long grown = Math.max(copied + n, 2L * copy.length);
      if (declared >= copied + n) {
        grown = Math.min(grown, declared); // the last growth lands on the declared length
      }
      copy = java.util.Arrays.copyOf(copy, (int) Math.min(grown, maxBytes + 1 + n));
    }
    data.get(copy, copied, n);
    copied += n;
    chunk.release();
  }

  private void finish(Content.Chunk failure, boolean overBudget) {
    finished = true;
    if (deadlineTask != null) {
      deadlineTask.cancel();
    }
    if (copy != null) {
      chunks.add(Content.Chunk.from(java.nio.ByteBuffer.wrap(copy, 0, copied), last));
    }
    if (failure != null) {
      chunks.add(failure);
    }
    then.accept(new Replay(request, chunks, bytes, reservation, overBudget, false));
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
    private final long length;
    private final BodyBudget.Reservation reservation;
    private final boolean overBudget;
    private final boolean timedOut;
    private boolean endReached;

    Replay(
        Request request,
        ArrayDeque<Content.Chunk> chunks,
        long length,
        BodyBudget.Reservation reservation,
        boolean overBudget,
        boolean timedOut) {
      super(request);
      this.chunks = chunks;
      this.length = length;
      this.reservation = reservation;
      this.overBudget = overBudget;
      this.timedOut = timedOut;
    }

    /** A replay of nothing read yet: {@link #read()} reads the real request. */
    static Replay of(Request request) {
      return new Replay(request, new ArrayDeque<>(), 0, null, false, false);
    }

    /** A body that did not arrive within the deadline ({@code came} bytes did); nothing kept. */
    static Replay timedOut(Request request, long came, BodyBudget.Reservation reservation) {
      return new Replay(request, new ArrayDeque<>(), came, reservation, false, true);
    }

    /**
     * True when the body did not arrive within the deadline: answer at once, without reading on
     * (the reader of the body may still be waiting for Jetty), and let Jetty end the connection or
     * stream.
     */
    boolean timedOut() {
      return timedOut;
    }

    /** How many bytes of the body were read ahead. */
    long length() {
      return length;
    }

    /** The room reserved in the budget, or {@code null}. */
    BodyBudget.Reservation reservation() {
      return reservation;
    }

    /** True when reading stopped because no budget came within its wait (answer 503). */
    boolean overBudget() {
      return overBudget;
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

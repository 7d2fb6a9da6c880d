package dev.ironcore.maintenance.server.http;

import dev.ironcore.maintenance.server.admission.TokenAllowance;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many bytes of request bodies the server reads and answers at once, so that reviews at the
 * same time cannot exhaust the heap: answering an admission review takes about five times its size
 * in heap while it is decoded, mutated and encoded (measured with the shipped 64 MiB heap: one 6.9
 * MB review fits, two at once ended the server with {@code OutOfMemoryError}; so did a flood of 64
 * KiB reviews). A request reserves its body's size before its body is read (its declared {@code
 * Content-Length}; a body of unknown length reserves the largest body when its first bytes come);
 * one that does not fit waits, unread, in arrival order, and is refused (the caller answers 503) if
 * it still does not fit after {@link #maxWait()}. A request larger than the whole budget reserves
 * all of it (it is answered alone). The reservation is released when the request completes, when
 * its body did not arrive within its deadline, or (over 64 KiB) after {@link #MAX_HOLD} at the
 * latest. Thread-safe.
 *
 * <p>A review of many small values takes far more heap than its bytes say, so a request also
 * reserves room for the JSON tokens of its tree ({@link #reservationFor(long)}), and a tree (or a
 * reply) that needs more grows its reservation while it is read ({@link Reservation#tokens(long)}):
 * without waiting, except for the oldest request over 64 KiB, which waits up to {@link #maxWait()}
 * for the others to finish (it waits for nobody who waits for it: a younger one that needs more is
 * refused at once), and which queued requests do not overtake meanwhile; so of several dense
 * reviews at once the oldest is answered instead of all of them being refused.
 */
public final class BodyBudget {
  private static final Logger LOG = LoggerFactory.getLogger(BodyBudget.class);

  /**
   * Default {@link #maxWait()}: 5 seconds, within the API server's default webhook timeout (10 s).
   */
  public static final Duration DEFAULT_WAIT = Duration.ofSeconds(5);

  /**
   * Longest a reservation over 64 KiB is held: 60 seconds, a backstop only. A body must arrive
   * within its deadline (10 s, then 408 and released) and is answered in well under a second; a
   * reservation still held after this belongs to a request Jetty never completed, and is released
   * so that it cannot keep the room for good. Smaller reservations get no timer (every review has
   * one; they are released when their request completes).
   */
  static final Duration MAX_HOLD = Duration.ofSeconds(60);

  /**
   * Heap set aside when the budget is derived from the heap: 32 MiB (the server's own live set is
   * about 17 MiB; the rest covers small bodies, which are not counted).
   */
  static final long HEAP_RESERVE_BYTES = 32L * 1024 * 1024;

  /**
   * Heap bytes per budgeted body byte: 4. Measured: an admission review takes about five times its
   * size while answered, a ConversionReview about four (it is converted one object at a time); the
   * shipped heap's 7.5 MiB budget at five times is 37.5 MiB, within the 62 - 17 MiB left.
   */
  static final long HEAP_PER_BODY_BYTE = 4;

  /**
   * Budget bytes per JSON token held in a tree: 24, for the heap a tree takes per token (about 80
   * bytes measured, {@link dev.ironcore.maintenance.server.admission.TokenAllowance}, plus the
   * handler's copies) at {@link #HEAP_PER_BODY_BYTE}. A request's weight is its body's bytes plus
   * 24 for every token its largest tree holds.
   */
  static final long BYTES_PER_TOKEN = 24;

  /**
   * The least a request reserves beyond its body's bytes before it is read, for its tree's tokens:
   * 16 KiB, room for 682 tokens (an admission review of 4.4 KB holds about 250 after the filter).
   */
  static final long TOKEN_SLACK_BYTES = 16L * 1024;

  /**
   * What a request with a body of {@code bodyBytes} reserves before its body is read: the body and
   * room for its tree's tokens, {@link #TOKEN_SLACK_BYTES} or twice the body's size up to 64 KiB,
   * whichever is more (a token per 12 bytes: ordinary reviews are sparser, e.g. a ConversionReview
   * of 4 Machines, 24 KB, holds 1,632 tokens, a token per 15 bytes), so that ordinary reviews never
   * need to grow their reservation, which fails rather than waits when the budget is full. Larger
   * bodies get the slack of 64 KiB (a ConversionReview over 64 KiB holds one object's tree at a
   * time).
   *
   * @param bodyBytes the body's declared length
   * @return the bytes to reserve
   */
  static long reservationFor(long bodyBytes) {
    long slack = Math.max(TOKEN_SLACK_BYTES, 2 * Math.min(bodyBytes, Routes.INLINE_LIMIT_BYTES));
    return bodyBytes + slack;
  }

  /**
   * The least a request's reservation grows by when its tree needs more: 64 KiB, or what it holds
   * already if that is more (so a large tree asks a few times, not once per token).
   */
  private static final long GROW_STEP_BYTES = 64L * 1024;

  private final long capacityBytes;
  private final Duration maxWait;
  private final Duration maxHold;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

  /** Granted reservations over 64 KiB not yet released, oldest first. */
  private final ArrayDeque<Reservation> large = new ArrayDeque<>();

  /**
   * Bytes the oldest large reservation waits to grow by (0: none waits); queued ones stay behind.
   */
  private long growthWanted;

  private long inUseBytes;

  /**
   * @param capacityBytes the most body bytes reserved at once, positive
   * @param wait how long a request waits for room before it is refused, not negative
   * @throws IllegalArgumentException when {@code capacityBytes} is not positive or {@code wait} is
   *     negative
   */
  public BodyBudget(long capacityBytes, Duration wait) {
    this(capacityBytes, wait, MAX_HOLD);
  }

  /**
   * @param maxHold how long a reservation is held at most ({@link #MAX_HOLD} outside tests)
   */
  BodyBudget(long capacityBytes, Duration wait, Duration maxHold) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("capacityBytes must be positive, got " + capacityBytes);
    }
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative, got " + wait);
    }
    this.capacityBytes = capacityBytes;
    this.maxWait = wait;
    this.maxHold = Objects.requireNonNull(maxHold, "maxHold");
  }

  /**
   * The budget for a heap of {@code maxHeapBytes} ({@link Runtime#maxMemory()}): what is left after
   * {@link #HEAP_RESERVE_BYTES}, divided by {@link #HEAP_PER_BODY_BYTE}, and never less than the
   * largest body ({@link Routes#BODY_LIMIT_BYTES} and one byte), so that any single review can be
   * answered. The shipped 64 MiB heap (62 MiB usable) gives 7.5 MiB: one review of the largest size
   * at a time, or several smaller ones.
   *
   * @param maxHeapBytes the JVM's maximum heap in bytes
   * @return a budget with {@link #DEFAULT_WAIT}
   */
  public static BodyBudget forHeap(long maxHeapBytes) {
    long derived = (maxHeapBytes - HEAP_RESERVE_BYTES) / HEAP_PER_BODY_BYTE;
    return new BodyBudget(Math.max(Routes.BODY_LIMIT_BYTES + 1, derived), DEFAULT_WAIT);
  }

  /** The most body bytes reserved at once. */
  public long capacityBytes() {
    return capacityBytes;
  }

  /** How long a request waits for room before it is refused. */
  public Duration maxWait() {
    return maxWait;
  }

  /** Bytes reserved now. */
  public synchronized long inUseBytes() {
    return inUseBytes;
  }

  /**
   * Reserves {@code bytes} (at most {@link #capacityBytes()}): {@code granted} runs on this thread
   * if they fit now and nobody waits before this request, else later on {@code executor} once
   * requests before it released theirs; {@code refused} runs on a {@code scheduler} thread if that
   * did not happen within {@link #maxWait()}. Exactly one of the two runs.
   *
   * @param bytes the body's size in bytes
   * @param granted receives the reservation; the caller runs it once the request completed
   * @param refused runs when no room came within the wait
   */
  void reserve(
      long bytes,
      Executor executor,
      Scheduler scheduler,
      Consumer<Reservation> granted,
      Runnable refused) {
    Objects.requireNonNull(granted, "granted");
    Objects.requireNonNull(refused, "refused");
    long n = Math.max(0, Math.min(bytes, capacityBytes));
    Waiter waiter = new Waiter(n, executor, scheduler, granted);
    synchronized (this) {
      if (!waiters.isEmpty() || inUseBytes + growthWanted + n > capacityBytes) {
        waiters.add(waiter);
        waiter.timeout =
            scheduler.schedule(
                () -> expire(waiter, refused), maxWait.toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      inUseBytes += n;
    }
    waiter.grant(false);
  }

  private void expire(Waiter waiter, Runnable refused) {
    List<Waiter> next;
    synchronized (this) {
      if (!waiters.remove(waiter)) {
        return; // granted meanwhile
      }
      next = admitWaiting(); // it may have kept smaller ones behind it waiting
    }
    refused.run(); // first the refusal, then those it kept waiting behind it
    next.forEach(w -> w.grant(true));
  }

  /** Takes the waiters from the front that fit now; call with the lock held. */
  private List<Waiter> admitWaiting() {
    List<Waiter> admitted = new ArrayList<>();
    for (Waiter w;
        (w = waiters.peek()) != null && inUseBytes + growthWanted + w.bytes <= capacityBytes; ) {
      waiters.poll();
      inUseBytes += w.bytes;
      if (w.timeout != null) {
        w.timeout.cancel();
      }
      admitted.add(w);
    }
    return admitted;
  }

  /** A request waiting for room. */
  private final class Waiter {
    final long bytes;
    final Executor executor;
    final Scheduler scheduler;
    final Consumer<Reservation> granted;
    Scheduler.Task timeout;

    Waiter(long bytes, Executor executor, Scheduler scheduler, Consumer<Reservation> granted) {
      this.bytes = bytes;
      this.executor = executor;
      this.scheduler = scheduler;
      this.granted = granted;
    }

    void grant(boolean later) {
      Reservation reservation = new Reservation(bytes);
      if (bytes > Routes.INLINE_LIMIT_BYTES) {
        synchronized (BodyBudget.this) {
          large.add(reservation);
        }
        reservation.expiry =
            scheduler.schedule(reservation::expire, maxHold.toMillis(), TimeUnit.MILLISECONDS);
      }
      if (later) {
        executor.execute(() -> granted.accept(reservation));
      } else {
        granted.accept(reservation);
      }
    }
  }

  /**
   * Whether {@code body} (UTF-8) has a character outside Latin-1: a byte from {@code 0xC4} on (the
   * lead byte of U+0100 and above) or a JSON escape of one (a backslash, {@code u} and four hex
   * digits not starting with {@code 00}; an escaped backslash before {@code u} counts too, which
   * only makes the estimate cautious).
   */
  static boolean hasWideText(byte[] body) {
    for (int i = 0; i < body.length; i++) {
      int b = body[i] & 0xFF;
      if (b >= 0xC4) {
        return true;
      }
      if (b == '\\'
          && i + 3 < body.length
          && body[i + 1] == 'u'
          && !(body[i + 2] == '0' && body[i + 3] == '0')) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reserved bytes; {@link #run()} releases them (once; later calls do nothing). It may grow while
   * its request reads its tree ({@link #tokens(long)}).
   */
  final class Reservation implements Runnable {
    private volatile long bytes; // written with the budget's lock held
    private boolean released; // guarded by the budget
    private volatile Scheduler.Task expiry;
    private long growDeadlineNanos; // guarded by the budget; 0 until it first waits to grow

    private Reservation(long bytes) {
      this.bytes = bytes;
    }

    @Override
    public void run() {
      List<Waiter> next;
      synchronized (BodyBudget.this) {
        if (released) {
          return;
        }
        released = true;
        inUseBytes -= bytes;
        large.remove(this);
        next = admitWaiting();
        if (growthWanted > 0) {
          BodyBudget.this.notifyAll(); // the oldest large request waits to grow
        }
      }
      Scheduler.Task task = expiry;
      if (task != null) {
        task.cancel();
      }
      next.forEach(w -> w.grant(true));
    }

    /** Bytes reserved (what a release gives back unless it was released already). */
    long bytes() {
      return bytes;
    }

    /**
     * Takes {@code more} bytes if they fit now, without waiting (the request holds its body and may
     * not wait for others while it does: two such could wait for each other).
     *
     * @return true when taken; false when they do not fit now or this was released
     */
    boolean tryGrow(long more) {
      synchronized (BodyBudget.this) {
        if (released || inUseBytes + more > capacityBytes) {
          return false;
        }
        inUseBytes += more;
        bytes += more;
        return true;
      }
    }

    /**
     * As {@link #tryGrow}, but the oldest unreleased reservation over 64 KiB waits for {@code more}
     * bytes, up to {@link #maxWait()} from its first wait, while no queued request is let in ahead
     * of it. Every other reservation answers at once: the oldest waits only for younger requests,
     * which never wait to grow, so nobody waits for a request that waits for it. Blocks the calling
     * thread (a pool thread: requests over 64 KiB are answered there, {@link Routes}).
     *
     * @return true when taken; false when they did not come in time or this was released
     */
    boolean growOrWait(long more) {
      List<Waiter> next = List.of();
      try {
        synchronized (BodyBudget.this) {
          if (tryGrow(more)) {
            return true;
          }
          if (released || large.peekFirst() != this || growthWanted > 0) {
            return false;
          }
          long now = System.nanoTime();
          if (growDeadlineNanos == 0) {
            growDeadlineNanos = now + maxWait.toNanos();
          }
          growthWanted = more;
          try {
            while (!released && inUseBytes + more > capacityBytes) {
              long left = growDeadlineNanos - System.nanoTime();
              if (left <= 0) {
                return false;
              }
              BodyBudget.this.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
            }
            return tryGrow(more);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          } finally {
            growthWanted = 0;
            next = admitWaiting(); // the ones it kept queued, when it gave up or took less
          }
        }
      } finally {
        next.forEach(w -> w.grant(true));
      }
    }

    /**
     * The tokens a request whose body has {@code bodyBytes} may hold in one tree: what it reserved
     * beyond its body, at {@link #BYTES_PER_TOKEN}, grown from the budget without waiting when a
     * tree needs more.
     *
     * @param bodyBytes the body's length in bytes
     * @return an allowance that refuses with {@code never} when the body and the tokens together
     *     exceed the whole budget (413), else when the budget has no room for them now (503)
     */
    TokenAllowance tokens(long bodyBytes) {
      return new HeapAllowance(bodyBytes, 0);
    }

    /**
     * As {@link #tokens(long)} for {@code body}, which counts twice when it is over 64 KiB and has
     * text outside Latin-1 ({@link #hasWideText}): Java keeps such a string at two bytes a
     * character, and Jackson allocates about 7 bytes a character while it reads one (4 for Latin-1
     * text); one review of 6.8 MB, a single annotation starting with U+0100, ended the 64 MiB
     * server (a fresh-eyes check). Smaller bodies reserve three times their size anyway ({@link
     * #reservationFor}).
     *
     * @throws TokenAllowance.Refused when the doubled body does not fit: never (413), or not now
     *     (503)
     */
    TokenAllowance tokens(byte[] body) {
      if (body.length <= Routes.INLINE_LIMIT_BYTES || !hasWideText(body)) {
        return tokens(body.length);
      }
      HeapAllowance allowance = new HeapAllowance(body.length, body.length);
      allowance.admitWideText();
      return allowance;
    }

    /** What the request may hold beside its body: its trees' tokens and its reply's excess. */
    private final class HeapAllowance implements TokenAllowance {
      private final long bodyBytes;
      private final long wideText;
      private long replyBeyondBody;

      /**
       * @param wideText bytes counted once more for text outside Latin-1 (the body's size, or 0)
       */
      HeapAllowance(long bodyBytes, long wideText) {
        this.bodyBytes = bodyBytes;
        this.wideText = wideText;
      }

      void admitWideText() {
        if (!fits(bodyBytes + wideText)) {
          throw refused(
              bodyBytes + wideText,
              "request body has text outside Latin-1, which this server holds at two bytes a"
                  + " character, so its "
                  + bodyBytes
                  + " bytes count twice and",
              "no room now for this body of " + bodyBytes + " bytes with text outside Latin-1");
        }
      }

      @Override
      public long admit(long tokens) {
        long fixed = bodyBytes + wideText + replyBeyondBody;
        if (!fits(fixed + tokens * BYTES_PER_TOKEN)) {
          String size = bodyBytes + " bytes and a tree of more than " + tokens + " tokens";
          throw refused(
              fixed + tokens * BYTES_PER_TOKEN,
              "request body has too many JSON values for this server's heap: its "
                  + size
                  + " (each counts "
                  + BYTES_PER_TOKEN
                  + " bytes)",
              "no room now for the JSON values of this body (" + size + ")");
        }
        return (bytes() - fixed) / BYTES_PER_TOKEN;
      }

      @Override
      public void admitReplyBytes(long bytesBeyondBody) {
        if (bytesBeyondBody <= replyBeyondBody) {
          return;
        }
        replyBeyondBody = bytesBeyondBody;
        if (!fits(bodyBytes + wideText + bytesBeyondBody)) {
          String size =
              bodyBytes
                  + " bytes, a reply of more than "
                  + (bodyBytes + bytesBeyondBody)
                  + " bytes";
          throw refused(
              bodyBytes + bytesBeyondBody,
              "the reply to this request is too large for this server's heap: its body of " + size,
              "no room now for the reply to this body (" + size + ")");
        }
      }

      /** Whether {@code need} bytes are held, after growing the reservation without waiting. */
      private boolean fits(long need) {
        long held = bytes();
        if (need <= held) {
          return true;
        }
        if (need > capacityBytes) {
          return false;
        }
        long step = Math.max(need - held, Math.max(GROW_STEP_BYTES, held));
        return tryGrow(Math.min(step, capacityBytes - held)) || growOrWait(need - held);
      }

      /** 413 when {@code need} exceeds the whole budget, else 503 (no room now). */
      private TokenAllowance.Refused refused(long need, String tooLarge, String noRoom) {
        if (need > capacityBytes) {
          return new TokenAllowance.Refused(
              tooLarge
                  + " exceed the "
                  + capacityBytes
                  + " bytes of request bodies it answers at once (set by its heap, -Xmx);"
                  + " send a smaller object",
              true);
        }
        return new TokenAllowance.Refused(
            "the server is answering other large requests: " + noRoom + "; send the request again",
            false);
      }
    }

    private void expire() {
      boolean held;
      synchronized (BodyBudget.this) {
        held = !released;
      }
      if (held) {
        LOG.warn(
            "a request held {} bytes of the request-body budget for {} ms without completing;"
                + " released",
            bytes,
            maxHold.toMillis());
        run();
      }
    }
  }
}

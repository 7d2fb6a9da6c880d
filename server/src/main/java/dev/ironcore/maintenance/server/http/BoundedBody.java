package dev.ironcore.maintenance.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** Reads a request body up to a limit, so an oversized body never fills memory. */
final class BoundedBody {
  private BoundedBody() {}

  /** The body is longer than the limit. */
  static final class TooLargeException extends IOException {
    private final boolean declared;

    TooLargeException(long limit, boolean declared) {
      super("request body is larger than " + limit + " bytes");
      this.declared = declared;
    }

    /** True when the Content-Length said so before a byte of the body was read. */
    boolean declared() {
      return declared;
    }
  }

  /**
   * The body ended before its Content-Length, or reading it failed: the client closed the
   * connection or reset the stream, sent broken chunks (which Jetty reports as an early end), or
   * sent nothing more within the idle timeout.
   */
  static final class IncompleteException extends IOException {
    private final long received;

    IncompleteException(long received, long declaredLength, IOException cause) {
      super(
          "the client sent "
              + received
              + (declaredLength >= 0 ? " of " + declaredLength : "")
              + " bytes of the body, then "
              + (timedOut(cause)
                  ? "nothing more within the idle timeout"
                  : declaredLength >= 0
                      ? "closed the connection or reset the stream"
                      // Jetty reports broken chunks as it reports a closed connection ("Early
                      // EOF"): fresh eyes (session 46) sent bad chunk sizes and were told they
                      // had closed the connection
                      : "the body ended before its last chunk or frame (the connection closed,"
                          + " the stream was reset, or the chunked framing was broken)"),
          cause);
      this.received = received;
    }

    /** True when the client went quiet (Jetty's idle timeout), not away. */
    boolean timedOut() {
      return timedOut(getCause());
    }

    /** How many bytes of the body came before it ended. */
    long received() {
      return received;
    }

    private static boolean timedOut(Throwable cause) {
      for (Throwable t = cause; t != null; t = t.getCause()) {
        if (t instanceof java.util.concurrent.TimeoutException) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * @param in the body
   * @param declaredLength the Content-Length, or -1 when unknown (chunked, HTTP/2 without it); a
   *     known length is read into one array of that size
   * @param limit the most bytes accepted
   * @return all bytes of the body
   * @throws TooLargeException when the declared or actual length exceeds {@code limit}; reading
   *     stops at {@code limit + 1} bytes, and does not start for a declared length over it
   * @throws IncompleteException when the body ends short of its Content-Length (a closed
   *     connection, a reset stream) or reading fails (the idle timeout)
   */
  static byte[] read(InputStream in, long declaredLength, long limit) throws IOException {
    if (declaredLength > limit) {
      throw new TooLargeException(limit, true);
    }
    long[] received = {0};
    try {
      return readCounting(in, declaredLength, limit, received);
    } catch (TooLargeException | IncompleteException e) {
      throw e;
    } catch (IOException e) {
      throw new IncompleteException(received[0], declaredLength, e);
    }
  }

  private static byte[] readCounting(
      InputStream in, long declaredLength, long limit, long[] received) throws IOException {
    byte[] declared = null;
    if (declaredLength >= 0) {
      // the usual case (the API server sends Content-Length): read into one array of that size
      declared = new byte[(int) declaredLength];
      int n = 0;
      for (int r; n < declared.length && (r = in.read(declared, n, declared.length - n)) >= 0; ) {
        n += r;
        received[0] = n;
      }
      if (n < declared.length) {
        throw new IncompleteException(n, declaredLength, null);
      }
      int next = in.read();
      if (next < 0) {
        return declared;
      }
      // more than declared (the transport should have refused it): read on, bounded as below
      declared = Arrays.copyOf(declared, n + 1);
      declared[n] = (byte) next;
    }
    ByteArrayOutputStream out =
        new ByteArrayOutputStream(declared != null ? declared.length + 8192 : 8192);
    long total = 0;
    if (declared != null) {
      out.write(declared, 0, declared.length);
      total = declared.length;
      if (total > limit) {
        throw new TooLargeException(limit, false);
      }
    }
    byte[] buffer = new byte[8192];
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      total += n;
      received[0] = total;
      if (total > limit) {
        throw new TooLargeException(limit, false);
      }
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }
}

package dev.ironcore.maintenance.server.admission;

/**
 * How many JSON tokens one request may hold in a tree at once (and how far its reply may outgrow
 * its body): its share of the heap besides its body. A tree costs about 80 bytes of heap per token
 * (measured on Java 25 with compressed pointers: a review with 200,000 small annotations, 2.7 MB,
 * became a tree of 32 MB), so a review of many small values takes far more heap than its size says;
 * counting its bytes alone let one 4 MB review end a server with a 64 MiB heap. Readers count the
 * tokens they put into a tree ({@link TokenCountingParser}) and ask before the tree grows past what
 * was granted.
 *
 * <p>A token is what Jackson's parser returns: the start or end of an object or array, a field
 * name, or a scalar value. Tokens a filter skips ({@link ReviewFilter}) never become tree nodes and
 * are not counted.
 */
@FunctionalInterface
public interface TokenAllowance {
  /** No limit: for callers that bound the heap otherwise (tests, the warm-up's own samples). */
  TokenAllowance UNLIMITED = tokens -> Long.MAX_VALUE;

  /**
   * @param tokens how many tokens one tree holds so far, positive
   * @return how many tokens the tree may hold before asking again; at least {@code tokens}
   * @throws Refused when the tree may not hold {@code tokens}
   */
  long admit(long tokens);

  /**
   * For a reply built beside the body that grows larger than the body (a down-conversion writes
   * v1alpha2-only fields into an annotation as escaped JSON: up to about 2.3 times the objects it
   * converts); nothing by default.
   *
   * @param bytesBeyondBody how many bytes the reply holds beyond the body's size so far
   * @throws Refused when the reply may not grow so far
   */
  default void admitReplyBytes(long bytesBeyondBody) {}

  /** A tree was refused more tokens; nothing was answered. */
  final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean never;

    /**
     * @param message why, for the client (one line)
     * @param never true when the review could not be answered even alone (HTTP 413), false when
     *     only not now, while other requests hold the room (HTTP 503, send again)
     */
    public Refused(String message, boolean never) {
      super(message, null, false, false);
      this.never = never;
    }

    /** True when the review could not be answered even alone (HTTP 413). */
    public boolean never() {
      return never;
    }
  }
}

package dev.ironcore.maintenance.certs.install;

/**
 * A request to a cluster that failed: the message is one line naming the request and its root
 * cause, e.g. {@code get MutatingWebhookConfiguration ironcore-maintenance: no answer from
 * https://127.0.0.1:40123 (Connection refused)}.
 */
public final class ClusterFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** No answer came (the API server down, unreachable, too slow), as opposed to an HTTP error. */
  private final boolean noAnswer;

  /**
   * @param message one line: the request and why it failed
   * @param noAnswer true when the API server did not answer at all
   * @param cause the client's exception
   */
  public ClusterFailure(String message, boolean noAnswer, Throwable cause) {
    super(message, cause);
    this.noAnswer = noAnswer;
  }

  /** True when the API server did not answer at all (down, unreachable or too slow). */
  public boolean noAnswer() {
    return noAnswer;
  }
}

package dev.ironcore.maintenance.controller.runtime;

/**
 * A pass stopped before its write because a write that must come first (its Event) got no answer, a
 * 5xx or a 429 from the API server. {@link Loop} retries it with back-off like any failure, and at
 * once when the API server answers again ({@link Loop#retryFailedNow}), as a pass whose own request
 * failed that way.
 */
public final class HeldForApiServer extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what waits and why, e.g. {@code eviction of Machine ns/vm-1 from MachinePool p
   *     held: its Evicted event could not be written; retrying both}
   */
  public HeldForApiServer(String message) {
    super(message);
  }
}

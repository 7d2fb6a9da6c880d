package dev.ironcore.maintenance.controller.runtime;

/**
 * A guarded write the API server refused because the object changed since it was read (409
 * Conflict, or 422 from a JSON Patch whose {@code test} of the resourceVersion failed): expected
 * whenever a cache lags or another client writes meanwhile. The {@link Loop} logs it at INFO
 * without a stack trace however often it happens in a row, and decides again from a fresh read.
 */
public final class ObjectChanged extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * @param code the API server's HTTP code (409 or 422)
   * @param cause the client's exception
   */
  public ObjectChanged(int code, Throwable cause) {
    super(
        "the object changed since it was read (the API server refused the guarded patch, "
            + code
            + "): deciding again",
        cause);
  }
}

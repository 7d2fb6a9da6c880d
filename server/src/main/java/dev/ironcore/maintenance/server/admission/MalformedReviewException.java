package dev.ironcore.maintenance.server.admission;

/** An AdmissionReview that cannot be understood; the message says what is wrong with it. */
public class MalformedReviewException extends RuntimeException {
  /**
   * @param message what is wrong, e.g. {@code "request.uid is missing"}
   */
  public MalformedReviewException(String message) {
    super(message);
  }
}

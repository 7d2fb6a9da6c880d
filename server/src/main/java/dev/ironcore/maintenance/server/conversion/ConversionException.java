package dev.ironcore.maintenance.server.conversion;

/**
 * One object of a ConversionReview cannot be converted (not an object, unknown apiVersion or kind,
 * metadata or annotations that are not objects; never the content of {@value
 * V1alpha2Fields#ANNOTATION}, which is ignored when unreadable). {@link ConversionReviews} turns it
 * into a {@code result.status: Failure} whose message names the object.
 */
public final class ConversionException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what is wrong, without the object's name (the caller adds it)
   */
  public ConversionException(String message) {
    super(message);
  }
}

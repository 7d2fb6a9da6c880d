package dev.ironcore.maintenance.api.compute;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * Reads a taint's {@code timeAdded} (RFC 3339, as the webhook writes it): the eviction loop and the
 * eviction warnings count {@code tolerationSeconds} from it (IronCore IEP-21).
 */
public final class TimeAdded {
  private TimeAdded() {}

  /**
   * @param text e.g. {@code 2026-11-30T16:00:00Z} or with an offset; null or empty when absent
   * @return the instant, or null when absent or unreadable (then the first sighting counts)
   */
  public static Instant parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}

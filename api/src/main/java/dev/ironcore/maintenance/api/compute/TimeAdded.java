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
   * @return the instant, or null when absent or unreadable (then the first sighting counts). Any
   *     offset RFC 3339 allows is read ({@code ±00:00} to {@code ±23:59}, as Go's {@code
   *     time.Parse} and so {@code metav1.Time} read it), also beyond the {@code ±18:00} that {@link
   *     OffsetDateTime#parse} stops at.
   */
  public static Instant parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      return wideOffset(text);
    }
  }

  /** {@code ...±HH:MM} with {@code HH} from 18 to 23 (past what java.time reads), else null. */
  private static Instant wideOffset(String text) {
    int n = text.length();
    if (n < 6
        || text.charAt(n - 3) != ':'
        || (text.charAt(n - 6) != '+' && text.charAt(n - 6) != '-')) {
      return null;
    }
    int hours;
    int minutes;
    try {
      hours = Integer.parseInt(text.substring(n - 5, n - 3));
      minutes = Integer.parseInt(text.substring(n - 2));
    } catch (NumberFormatException e) {
      return null;
    }
    if (hours < 18 || hours > 23 || minutes > 59 || !Character.isDigit(text.charAt(n - 5))) {
      return null;
    }
    try {
      Instant local = OffsetDateTime.parse(text.substring(0, n - 6) + "Z").toInstant();
      long offset = (hours * 60L + minutes) * 60L;
      return text.charAt(n - 6) == '+' ? local.minusSeconds(offset) : local.plusSeconds(offset);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}

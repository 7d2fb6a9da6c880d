package dev.ironcore.maintenance.api.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What a short watch from an informer's last resourceVersion found, read from its answer: the
 * evidence that an informer's own watch, silent for a while, missed changes (its connection was
 * dropped without a reset) rather than had nothing to hear (a quiet resource). kube-apiserver
 * answers a watch from resourceVersion {@code R} with every change after {@code R} first, then
 * waits; with {@code timeoutSeconds} it ends the answer after that long. Pure.
 */
public final class WatchProbe {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WatchProbe() {}

  /** What a probe found. */
  public enum Found {
    /** No change after the resourceVersion: nothing was missed. */
    NOTHING,
    /** Changes after the resourceVersion ({@code ADDED}, {@code MODIFIED}, {@code DELETED}). */
    CHANGES,
    /**
     * 410 Gone: the resourceVersion is older than this API server's watch history (it restarted, is
     * another one, or compacted): whether anything changed is not known.
     */
    EXPIRED
  }

  /**
   * @param code the HTTP status of the watch request
   * @param body its body: one JSON watch event per line ({@code {"type":"ADDED","object":...}})
   * @return what the watch found
   * @throws IllegalStateException for another status, an {@code ERROR} event other than 410, or a
   *     line that is not a watch event (the probe says nothing then)
   */
  public static Found read(int code, String body) {
    if (code == 410) {
      return Found.EXPIRED;
    }
    if (code != 200) {
      throw new IllegalStateException("the probe watch was answered " + code);
    }
    Found found = Found.NOTHING;
    for (String line : body == null ? new String[0] : body.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode event;
      try {
        event = JSON.readTree(line);
      } catch (IOException e) {
        throw new UncheckedIOException("not a watch event: " + abbreviate(line), e);
      }
      String type = event.path("type").asText("");
      switch (type) {
        case "ADDED", "MODIFIED", "DELETED" -> found = Found.CHANGES;
        case "BOOKMARK" -> {
          // not a change
        }
        case "ERROR" -> {
          int status = event.path("object").path("code").asInt(0);
          if (status != 410) {
            throw new IllegalStateException(
                "the probe watch got an ERROR event: " + abbreviate(line));
          }
          return Found.EXPIRED;
        }
        default -> throw new IllegalStateException("not a watch event: " + abbreviate(line));
      }
    }
    return found;
  }

  private static String abbreviate(String line) {
    return line.length() <= 200 ? line : line.substring(0, 200) + "...";
  }
}

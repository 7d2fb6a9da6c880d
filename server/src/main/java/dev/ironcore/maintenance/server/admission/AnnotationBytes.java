package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * How Kubernetes measures an object's annotations (apimachinery {@code ValidateAnnotationsSize}):
 * the UTF-8 bytes of every key and value, at most {@link #LIMIT} in all; the API server refuses a
 * write over it ({@code metadata.annotations: Too long: may not be more than 262144 bytes}).
 */
public final class AnnotationBytes {
  /** Kubernetes' {@code TotalAnnotationSizeLimitB}: 256 KiB. */
  public static final long LIMIT = 256 * 1024;

  private AnnotationBytes() {}

  /** The bytes one annotation counts: its key's and its value's, UTF-8. */
  public static long of(String key, String value) {
    return utf8(key) + utf8(value);
  }

  /**
   * @param annotations an object's {@code metadata.annotations} (any node: not an object counts 0)
   * @return the bytes of all of them; a value that is not a string counts as its text
   */
  public static long total(JsonNode annotations) {
    long bytes = 0;
    if (annotations == null || !annotations.isObject()) {
      return 0;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = annotations.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> annotation = it.next();
      bytes += of(annotation.getKey(), annotation.getValue().asText());
    }
    return bytes;
  }

  private static long utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}

package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;
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

  /**
   * The UTF-8 length of {@code s} without encoding it (every CAPI Machine review measures its
   * annotations). A lone surrogate (JSON's {@code "\\ud83d"} without its pair) counts 3, as the
   * U+FFFD that kube-apiserver's Go decoder reads it as.
   */
  static long utf8(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
